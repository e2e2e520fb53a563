import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig, type Plugin } from "vite"
import solid from "vite-plugin-solid"

const root = fileURLToPath(new URL(".", import.meta.url))

/**
 * The API docs page (/docs) renders /openapi.json with Redoc's standalone build, served from our own origin: copied
 * from the dev dependency into dist/assets under its version's name (immutable caching; the server looks it up). Its
 * sidebar footer loads a logo from Redocly's CDN: that one URL becomes an empty inline image, so the page makes no
 * third-party request (and its policy stays `img-src 'self' data:`). A new version without the URL fails the build.
 */
const REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
const BLANK_SVG = "data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%271%27 height=%271%27/%3E"
const redocBundle = (): Plugin => ({
  name: "redoc-standalone",
  apply: "build",
  closeBundle() {
    const require = createRequire(import.meta.url)
    const pkg = require.resolve("redoc/package.json")
    const version = (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version
    mkdirSync(join(root, "dist", "assets"), { recursive: true })
    const bundle = readFileSync(join(dirname(pkg), "bundles", "redoc.standalone.js"), "utf8")
    if (!bundle.includes(REDOC_LOGO)) throw new Error(`redoc ${version}: the logo URL ${REDOC_LOGO} is not in the bundle any more; check what it loads`)
    writeFileSync(join(root, "dist", "assets", `redoc-${version}.standalone.js`), bundle.replaceAll(REDOC_LOGO, BLANK_SVG))
  }
})

export default defineConfig({
  root,
  plugins: [solid(), redocBundle()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, target: "es2022" },
  server: { proxy: { "/api": "http://localhost:8080", "/auth": "http://localhost:8080", "/ws": { target: "ws://localhost:8080", ws: true } } }
})
