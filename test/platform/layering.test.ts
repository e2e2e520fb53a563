/**
 * The layering rules (docs/ARCHITECTURE.md) are enforced by dependency-cruiser in `npm test`. This checks that they
 * really bite: a tree with upward imports (platform → domain, domain → actor, client → server), a domain reaching into
 * another domain's Repo, and an actor reaching past a domain's services (its Repo, a helper) or into a gateway is
 * refused, and the same tree without them passes — also for a domain in parts (sub-folders with their own repos).
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
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
  run(BIN, [...["server", "actors", "client"].filter((d) => existsSync(join(dir, d))), "--config", CONFIG], { cwd: dir }).then(
    () => ({ ok: true, out: "" }),
    (e: { stdout?: string }) => ({ ok: false, out: e.stdout ?? "" })
  )

describe("layering", () => {
  const base = {
    "server/platform/http/Route.ts": "export const route = 1\n",
    "server/domains/alerts/Repo.ts": "import { route } from '../../platform/http/Route'\nexport const repo = route\n",
    "server/domains/alerts/Alerts.ts": "import { Effect } from 'effect'\nimport { repo } from './Repo'\nexport class Alerts extends Effect.Service<Alerts>()('a', { succeed: repo }) {}\n",
    "server/domains/alerts/Format.ts": "export const format = 1\n",
    "server/gateways/mcp/Mcp.ts": "import { Alerts } from '../../domains/alerts/Alerts'\nexport const mcp = Alerts\n",
    "actors/notifier/Behaviour.ts": "import { Alerts } from '../../server/domains/alerts/Alerts'\nexport const notifier = Alerts\n",
    "actors/index.ts": "import { notifier } from './notifier/Behaviour'\nexport const ACTORS = [notifier]\n",
    "schema/streams.ts": "export const STREAMS = {}\n",
    "client/src/api.ts": "import { STREAMS } from '../../schema/streams'\nexport const api = STREAMS\n"
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
    expect(result.out).toContain("platform-imports-upward")
    expect(result.out).toContain("domain-imports-another-domains-repo")
  }, 60_000)

  it("fails on a domain or the platform importing an actor, an actor past a domain's services or into a gateway, and the client importing the server", async () => {
    const result = await cruise(tree({
      ...base,
      "server/domains/alerts/Bot.ts": "import { ACTORS } from '../../../actors/index'\nexport const bot = ACTORS\n",
      "server/platform/http/Guards.ts": "import { notifier } from '../../../actors/notifier/Behaviour'\nexport const g = notifier\n",
      "actors/notifier/Protocol.ts": "import { repo } from '../../server/domains/alerts/Repo'\nimport { format } from '../../server/domains/alerts/Format'\nimport { mcp } from '../../server/gateways/mcp/Mcp'\nexport const p = [repo, format, mcp]\n",
      "client/src/store.ts": "import { Alerts } from '../../server/domains/alerts/Alerts'\nexport const store = Alerts\n"
    }))
    expect(result.ok).toBe(false)
    for (const rule of ["domain-imports-upward", "platform-imports-upward", "actor-imports-gateway", "client-imports-server"]) expect(result.out).toContain(rule)
    expect(result.out).toContain("actor-imports-domain-internals: actors/notifier/Protocol.ts → server/domains/alerts/Repo.ts")
    expect(result.out).toContain("actor-imports-domain-internals: actors/notifier/Protocol.ts → server/domains/alerts/Format.ts")
    // The domain's service file itself is what an actor may import.
    expect(result.out).not.toContain("actors/notifier/Behaviour.ts → server/domains/alerts/Alerts.ts")
  }, 60_000)

  it("holds for a domain in parts (sub-folders): a part's repo is the domain's own, its service what an actor may import", async () => {
    const parts = {
      ...base,
      "server/domains/alerts/delivery/DeliveriesRepo.ts": "export const deliveries = 1\n",
      "server/domains/alerts/delivery/Notifier.ts": "import { Effect } from 'effect'\nimport { deliveries } from './DeliveriesRepo'\nexport class Notifier extends Effect.Service<Notifier>()('n', { succeed: deliveries }) {}\n",
      // Inside the domain, a part may read another part's repo.
      "server/domains/alerts/matching/Fanout.ts": "import { deliveries } from '../delivery/DeliveriesRepo'\nexport const fanout = deliveries\n",
      "actors/notifier/Behaviour.ts": "import { Notifier } from '../../server/domains/alerts/delivery/Notifier'\nexport const notifier = Notifier\n"
    }
    expect(await cruise(tree(parts))).toEqual({ ok: true, out: "" })
    const result = await cruise(tree({
      ...parts,
      "server/domains/echo/Echo.ts": "import { deliveries } from '../alerts/delivery/DeliveriesRepo'\nexport const echo = deliveries\n",
      "actors/notifier/Protocol.ts": "import { deliveries } from '../../server/domains/alerts/delivery/DeliveriesRepo'\nexport const p = deliveries\n"
    }))
    expect(result.ok).toBe(false)
    expect(result.out).toContain("domain-imports-another-domains-repo: server/domains/echo/Echo.ts → server/domains/alerts/delivery/DeliveriesRepo.ts")
    expect(result.out).toContain("actor-imports-domain-internals: actors/notifier/Protocol.ts → server/domains/alerts/delivery/DeliveriesRepo.ts")
    expect(result.out).not.toContain("server/domains/alerts/matching/Fanout.ts →")
  }, 60_000)
})
