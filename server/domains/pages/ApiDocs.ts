/**
 * The API documentation page (/docs): this service's OpenAPI document (/openapi.json) rendered by Redoc's standalone
 * build, served from our own origin (dist/assets, copied there by the console build from the `redoc` package). Its
 * own Content-Security-Policy is the console's plus `worker-src blob:` (Redoc's search index runs in a worker made
 * from a blob). Without the built asset the page says how to build it.
 */
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { CLIENT_DIST } from "../../platform/http/Static"
import { esc } from "./Site"

export const DOCS_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:",
  "connect-src 'self'", "worker-src blob:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'", "object-src 'none'"
].join("; ")

/** The Redoc bundle's file under /assets (its version is in the name), or null when the console is not built. */
export const redocAsset = (dir = CLIENT_DIST): string | null => {
  const assets = join(dir, "assets")
  if (!existsSync(assets)) return null
  return readdirSync(assets).find((f) => /^redoc-[\d.]+\.standalone\.js$/.test(f)) ?? null
}

const STYLE = `body{margin:0;background:#fff}
.docs-top{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;align-items:center;padding:.6rem 1rem;background:#0d1117;color:#e6edf3;
font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.docs-top a{color:#58a6ff;text-decoration:none}.docs-top strong{margin-right:auto}`

export const apiDocsPage = (asset: string | null): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>API documentation · Whale Intelligence</title><link rel="icon" href="data:,"><style>${STYLE}</style></head>
<body><nav class="docs-top"><strong>Whale Intelligence API</strong><a href="/">Console</a><a href="/account">API keys</a>
<a href="/pricing">Pricing</a><a href="/openapi.json">openapi.json</a></nav>
${asset === null
  ? `<p style="padding:1rem">The API reference needs the console build: run <code>npm run build</code>, then reload. The document itself is at <a href="/openapi.json">/openapi.json</a>.</p>`
  : `<redoc spec-url="/openapi.json" hide-hostname="true" expand-responses="200" path-in-middle-panel="true" required-props-first="true" sort-props-alphabetically="false"></redoc>
<script src="/assets/${esc(asset)}"></script>`}
</body></html>`
