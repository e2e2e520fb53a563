/**
 * The layering rule (docs/ARCHITECTURE.md) is enforced by dependency-cruiser in `npm test`. This checks that the rule
 * really bites: a tree with an upward import (platform → domain) and a domain reaching into another domain's Repo
 * is refused, and the same tree without them passes.
 */
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"

const run = promisify(execFile)
const ROOT = resolve(import.meta.dirname, "../..")
const BIN = join(ROOT, "node_modules/.bin/depcruise")
const CONFIG = join(ROOT, ".dependency-cruiser.cjs")
const dirs: Array<string> = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

const tree = (files: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "layering-"))
  dirs.push(dir)
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "ESNext", moduleResolution: "Bundler" } }))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

const cruise = async (dir: string) =>
  run(BIN, ["server", "--config", CONFIG], { cwd: dir }).then(
    () => ({ ok: true, out: "" }),
    (e: { stdout?: string }) => ({ ok: false, out: e.stdout ?? "" })
  )

describe("layering", () => {
  const base = {
    "server/platform/http/Route.ts": "export const route = 1\n",
    "server/domains/alerts/Repo.ts": "import { route } from '../../platform/http/Route'\nexport const repo = route\n",
    "server/domains/alerts/Alerts.ts": "import { repo } from './Repo'\nexport const alerts = repo\n"
  }

  it("passes a tree whose arrows point down", async () => {
    expect(await cruise(tree({ ...base, "server/domains/echo/Echo.ts": "import { alerts } from '../alerts/Alerts'\nexport const echo = alerts\n" }))).toEqual({ ok: true, out: "" })
  }, 60_000)

  it("fails on a platform file importing a domain, and on a domain using another domain's Repo", async () => {
    const result = await cruise(tree({
      ...base,
      "server/platform/http/Guards.ts": "import { alerts } from '../../domains/alerts/Alerts'\nexport const g = alerts\n",
      "server/domains/echo/Echo.ts": "import { repo } from '../alerts/Repo'\nexport const echo = repo\n"
    }))
    expect(result.ok).toBe(false)
    expect(result.out).toContain("platform-imports-domain-or-gateway")
    expect(result.out).toContain("domain-imports-another-domains-repo")
  }, 60_000)
})
