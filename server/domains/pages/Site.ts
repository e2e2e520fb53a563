/**
 * The one layout of every server-rendered page of the site (§4.5): a header with the site's name and main links,
 * the page's content, a footer with the legal links and the not-financial-advice line. Readable on a phone
 * (fluid width, 16 px base, tables scroll sideways inside their own box). No script, no remote resource: pages are
 * served with `SITE_CSP`.
 */
export const esc = (s: string | number) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** Pages carry no script at all; inline styles are the page's own. */
export const SITE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#e6edf3;background:#0d1117;-webkit-text-size-adjust:100%}
a{color:#58a6ff}
header.site{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:.75rem 1rem;border-bottom:1px solid #30363d;background:#161b22}
header.site .brand{font-weight:700;color:#e6edf3;text-decoration:none;margin-right:auto}
header.site nav{display:flex;flex-wrap:wrap;gap:.25rem .9rem;font-size:.95rem}
main{max-width:48rem;margin:0 auto;padding:1.25rem 1rem 2rem}
main.wide{max-width:72rem}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.75rem 0 .5rem}
p,li{overflow-wrap:anywhere}
.muted{color:#8b949e}
.note{border:1px solid #30363d;border-radius:8px;padding:.75rem 1rem;background:#161b22}
.teaser{border:1px dashed #3fb950;border-radius:8px;padding:1rem;margin:1rem 0;background:#0f2418}
.btn{display:inline-block;padding:.55rem 1rem;border-radius:6px;background:#238636;color:#fff;text-decoration:none;border:0;font:inherit;cursor:pointer}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.5rem 0 1rem}
table{border-collapse:collapse;width:100%;font-size:.93rem}
th,td{padding:.4rem .5rem;border-bottom:1px solid #21262d;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
table.pricing th,table.pricing td{text-align:center;white-space:normal;min-width:8rem}
table.pricing th:first-child,table.pricing td:first-child{text-align:left;min-width:11rem}
.pricing-cards{display:none}
.tier-card{border:1px solid #30363d;border-radius:8px;padding:.25rem 1rem 1rem;margin:0 0 1rem;background:#161b22}
.tier-card h2{margin-top:.75rem}
@media (max-width:44rem){.pricing-table{display:none}.pricing-cards{display:block}}
.pos{color:#3fb950}.neg{color:#f85149}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(9.5rem,1fr));gap:.75rem;margin:1rem 0}
.card{border:1px solid #30363d;border-radius:8px;padding:.75rem;background:#161b22}
.card .v{font-size:1.5rem;font-weight:700}
footer.site{border-top:1px solid #30363d;padding:1rem;font-size:.85rem;color:#8b949e;text-align:center}
footer.site nav{display:flex;flex-wrap:wrap;justify-content:center;gap:.25rem 1rem;margin-bottom:.5rem}
`

export interface PageOptions {
  readonly title: string
  /** Wider content area (tables). */
  readonly wide?: boolean
  /** A short description for search engines and link previews. */
  readonly description?: string
}

const NAV: ReadonlyArray<readonly [string, string]> = [
  ["/feed", "Live feed"], ["/positioning", "Positioning"], ["/watchlist", "Watchlist"], ["/alerts", "Alerts"], ["/pricing", "Pricing"], ["/docs", "API"]
]
const LEGAL: ReadonlyArray<readonly [string, string]> = [
  ["/terms", "Terms"], ["/business-terms", "Business terms"], ["/privacy", "Privacy"], ["/disclaimer", "Disclaimer"], ["/cookie-policy", "Cookies"]
]

/** A whole page: `body` is trusted HTML built with `esc` for every interpolated value. */
export const sitePage = (options: PageOptions, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(options.title)} · Whale Intelligence</title>
${options.description ? `<meta name="description" content="${esc(options.description)}">` : ""}
<meta name="color-scheme" content="dark"><link rel="icon" href="data:,"><style>${STYLE}</style></head>
<body><header class="site"><a class="brand" href="/">Whale Intelligence</a><nav>${NAV.map(([h, l]) => `<a href="${h}">${l}</a>`).join("")}</nav></header>
<main${options.wide ? ` class="wide"` : ""}>${body}</main>
<footer class="site"><nav>${LEGAL.map(([h, l]) => `<a href="${h}">${l}</a>`).join("")}</nav>
Observational on-chain data about large Ethereum holders. Not financial advice.</footer>
</body></html>`
