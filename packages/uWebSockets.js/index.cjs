"use strict"
/**
 * uWebSockets.js for this project: the native binary that `uws-pack@20.0.8` ships (an upstream uWebSockets.js v20.4x
 * build, see the README's "Node 22" section), loaded directly — uws-pack's own JS wrapper is not used. A binary is
 * loaded only if its SHA-256 is one we checked; anything else (another platform, another Node ABI, a changed file)
 * stops the process with the reason. There is no fallback implementation.
 *
 * Moving to another Node line is one entry in CHECKED once a build for its ABI exists that loads here.
 */
const { createHash } = require("node:crypto")
const { existsSync, readFileSync } = require("node:fs")
const { dirname, join } = require("node:path")

/** `<platform>_<arch>_<ABI>` → the SHA-256 of the binary we checked (exports compared with upstream's index.d.ts). */
const CHECKED = {
  linux_x64_127: "8cabc918bbf9a07323e54f89a33882491080b2eb35df0607f473ccdb1f3c31af"
}

const target = `${process.platform}_${process.arch}_${process.versions.modules}`
const file = `uws_${target}.node`
const unsupported = (why) =>
  new Error(`uWebSockets.js: ${why} (Node ${process.version}, ${process.platform}/${process.arch}, ABI ${process.versions.modules}). ` +
    "This build runs on Node 22 on Linux x64 only: see the README's \"Node 22\" section.")

const expected = CHECKED[target]
if (expected === undefined) throw unsupported(`no checked binary for ${target}`)
/** uws-pack's copy in the nearest `node_modules` above this folder (npm links this package from the repo's). */
const find = () => {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", "uws-pack", "dist", "bin", file)
    if (existsSync(candidate)) return candidate
    if (dirname(dir) === dir) return undefined
  }
}
const path = find()
if (path === undefined) throw unsupported(`${file} not found in uws-pack (is uws-pack@20.0.8 installed? npm ci installs it)`)
const actual = createHash("sha256").update(readFileSync(path)).digest("hex")
if (actual !== expected) throw unsupported(`${path} has SHA-256 ${actual}, not the checked ${expected}; refusing to load it`)

// uWS refuses request heads over 4 kB (431) by default; allow Node's own default, 16 KiB (long query strings, cookies).
if (process.env.UWS_HTTP_MAX_HEADERS_SIZE === undefined) process.env.UWS_HTTP_MAX_HEADERS_SIZE = "16384"

module.exports = require(path)
