/**
 * The runtime the tests run on is the one the project declares (.node-version, engines), and uWebSockets.js is the
 * checked native build: our shim loads it for this ABI and refuses a binary whose SHA-256 is not the checked one, or
 * an ABI it has no checked binary for.
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const require = createRequire(import.meta.url)
const shim = join(root, "packages", "uWebSockets.js", "index.cjs")

/** Runs the shim from a copy beside a fake `node_modules/uws-pack` holding `binary` under this ABI's file name. */
const loadShimBeside = (binary: Buffer, env: Record<string, string> = {}) => {
  const dir = mkdtempSync(join(tmpdir(), "whale-uws-"))
  const bin = join(dir, "node_modules", "uws-pack", "dist", "bin")
  mkdirSync(bin, { recursive: true })
  writeFileSync(join(bin, `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`), binary)
  mkdirSync(join(dir, "shim"))
  copyFileSync(shim, join(dir, "shim", "index.cjs"))
  try {
    execFileSync(process.execPath, ["-e", `require(${JSON.stringify(join(dir, "shim", "index.cjs"))})`], {
      encoding: "utf8", stdio: "pipe", env: { ...process.env, ...env }
    })
    return "loaded"
  } catch (e) {
    return String((e as { stderr?: string }).stderr)
  }
}

describe("runtime", () => {
  it("runs on the Node line of .node-version, inside engines", () => {
    const want = readFileSync(join(root, ".node-version"), "utf8").trim()
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } }
    const major = Number(process.versions.node.split(".")[0])
    expect(process.version.startsWith(`v${want.split(".")[0]}.`), `tests run on ${process.version}, .node-version says ${want}`).toBe(true)
    expect(pkg.engines.node).toBe(`>=${major} <${major + 1}`)
    expect(major).toBe(22)
  })

  it("loads the native uWebSockets.js build (no fallback), with upstream's surface", () => {
    const uws = require("uWebSockets.js") as Record<string, unknown>
    for (const name of ["App", "SSLApp", "H3App", "us_listen_socket_close", "us_socket_local_port", "getParts"]) {
      expect(typeof uws[name], name).toBe("function")
    }
    expect(uws.DISABLED).toBe(0)
    const app = (uws.App as () => Record<string, unknown>)()
    for (const m of ["get", "post", "any", "ws", "listen", "publish", "numSubscribers", "close"]) expect(typeof app[m], m).toBe("function")
    ;(app.close as () => void)()
  })

  it("refuses a binary whose SHA-256 is not the checked one", () => {
    const out = loadShimBeside(Buffer.from("not the checked binary"))
    expect(out).toMatch(/has SHA-256 [0-9a-f]{64}, not the checked [0-9a-f]{64}; refusing to load it/)
  })

  it("names the binary it loads and its hash in the README", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const checked = /linux_x64_127: "([0-9a-f]{64})"/.exec(readFileSync(shim, "utf8"))![1]!
    expect(readme).toContain(checked)
  })
})
