/**
 * The console's built assets (`npm run build` → client/dist): `/assets/*` with immutable caching (file names carry
 * content hashes), and the console shell for `/` and the console's own client-side paths. Files are read once and
 * kept in memory; a missing build answers a page saying how to build it. Their contracts stay here: pages and
 * files, not JSON endpoints.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs"
import { extname, join, normalize } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { NotFound } from "./Errors"
import { Guard } from "./Guards"
import { Reply } from "./Reply"
import { endpoint } from "../../../schema/http/endpoint"
import { route, type AnyRoute } from "./Route"

export const CLIENT_DIST = fileURLToPath(new URL("../../../client/dist/", import.meta.url))

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon", ".json": "application/json", ".map": "application/json",
  ".woff2": "font/woff2", ".txt": "text/plain; charset=utf-8"
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Whale Intelligence</title>
<p>The console has not been built. Run <code>npm run build</code>, then reload.</p>`

/** Loads every file of the build into memory (a few hundred kB). */
const loadAssets = (dir: string) => {
  const files = new Map<string, Uint8Array>()
  const walk = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = join(sub, entry.name)
      if (entry.isDirectory()) walk(rel)
      else files.set(normalize(rel).replace(/\\/g, "/"), readFileSync(join(dir, rel)))
    }
  }
  if (existsSync(dir)) walk("")
  return files
}

/** The console shell with status 404, for a browser's unknown path (the console renders its not-found page). */
export const consoleNotFound = (dir = CLIENT_DIST): (() => Reply) => {
  const index = loadAssets(dir).get("index.html")
  const page = index === undefined ? null : Buffer.from(index).toString("utf8")
  return () => Reply.html(page ?? NOT_BUILT, 404, [["cache-control", "no-cache"], ["x-frame-options", "DENY"]])
}

/** Routes serving the console: the given client-side paths (the shell) and `/assets/*`. */
export const staticRoutes = (consolePaths: ReadonlyArray<string>, dir = CLIENT_DIST): ReadonlyArray<AnyRoute> => {
  const files = loadAssets(dir)
  const index = files.get("index.html")
  const shell = () => Effect.succeed(index
    ? Reply.bytes(index, TYPES[".html"]!, [["cache-control", "no-cache"], ["x-frame-options", "DENY"]])
    : Reply.html(NOT_BUILT, 200, [["cache-control", "no-store"]]))
  return [
    ...consolePaths.map((path) =>
      // The shell answers whatever a console path's parameter holds (`/tokens/{token}`): nothing to validate, so the
      // contract declares no params (and is a plain object: `endpoint()` would ask for their schema).
      route({ method: "GET", path, summary: "The live console", tags: ["console"], produces: "text/html" }, { guard: Guard.anon, handler: shell })),
    route(endpoint({ method: "GET", path: "/assets/*", summary: "Console assets", tags: ["console"], produces: "application/octet-stream" }), {
      guard: Guard.anon,
      handler: ({ req }) => {
        const rel = `assets/${req.path.slice("/assets/".length)}`
        const body = files.get(rel)
        return body
          ? Effect.succeed(Reply.bytes(body, TYPES[extname(rel)] ?? "application/octet-stream", [["cache-control", "public, max-age=31536000, immutable"]]))
          : Effect.fail(new NotFound({ message: `No asset ${req.path}` }))
      }
    })
  ]
}
