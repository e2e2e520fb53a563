/**
 * The `/positioning` page, rendered on the server from the positioning read model (server/analytics) cut to the
 * caller's tier by `positioningFor` — so nothing a tier may not see is ever in the HTML (§4.5):
 *
 *   anon        majors, overall score, divergence; the asset table is a sign-up teaser (no asset rows)
 *   free        the top FREE_ROWS assets, then a Pro teaser
 *   pro+        every asset and the size cohorts
 *   alpha+      also the named accumulator wallets of each asset
 */
import type { Positioning } from "../../../schema/http/analytics"
import { TIER_RANK, type Tier } from "../../../schema/tiers"
import { esc, sitePage } from "./Site"

/** Rows of the asset table a free account sees (the read model's free cut). */
export const FREE_ROWS = 10

type Asset = Positioning["assets"][number]
type CohortFlow = NonNullable<Positioning["cohorts"]>[number]

const usd = (x: number) => {
  const a = Math.abs(x)
  const s = a >= 1e9 ? `${(a / 1e9).toFixed(2)}B` : a >= 1e6 ? `${(a / 1e6).toFixed(2)}M` : a >= 1e3 ? `${(a / 1e3).toFixed(1)}k` : a.toFixed(0)
  return `${x < 0 ? "−" : x > 0 ? "+" : ""}$${s}`
}
const signed = (x: number) => `<span class="${x > 0 ? "pos" : x < 0 ? "neg" : ""}">${usd(x)}</span>`
const label = (score: number) => (score >= 60 ? "accumulating" : score <= 40 ? "distributing" : "neutral")
const short = (w: string) => `${w.slice(0, 6)}…${w.slice(-4)}`

const assetRows = (assets: ReadonlyArray<Asset>, accumulators: boolean) =>
  assets.map((a) => `<tr><td>${esc(a.symbol)}</td><td>${a.score.toFixed(1)}</td><td>${signed(a.net_flow_7d_usd)}</td><td>${signed(a.net_flow_30d_usd)}</td>${
    accumulators ? `<td>${(a.top_accumulators ?? []).slice(0, 3).map((w) => `${esc(w.label || short(w.wallet))} <span class="muted">${usd(w.net_flow_30d_usd)}</span>`).join("<br>") || `<span class="muted">—</span>`}</td>` : ""
  }</tr>`).join("")

const assetTable = (assets: ReadonlyArray<Asset>, accumulators: boolean) => `<div class="scroll"><table>
<thead><tr><th>Asset</th><th>Score</th><th>Net 7d</th><th>Net 30d</th>${accumulators ? "<th>Top accumulators (30d)</th>" : ""}</tr></thead>
<tbody>${assetRows(assets, accumulators)}</tbody></table></div>`

const cohortTable = (cohorts: ReadonlyArray<CohortFlow>) => `<div class="scroll"><table>
<thead><tr><th>Cohort</th><th>Wallets</th><th>Net 7d</th><th>Net 30d</th></tr></thead>
<tbody>${cohorts.map((c) => `<tr><td>${esc(c.cohort)}</td><td>${c.wallets}</td><td>${signed(c.net_flow_7d_usd)}</td><td>${signed(c.net_flow_30d_usd)}</td></tr>`).join("")}</tbody></table></div>`

export interface PositioningPageMeta {
  readonly generatedAt: string
  readonly demo: boolean
}

/** `view` must already be `positioningFor(full, tier)`; the tier decides which sections exist. */
export const renderPositioning = (view: Positioning, tier: Tier, meta: PositioningPageMeta): string => {
  const rank = TIER_RANK[tier]
  const majors = view.majors.map((m) => `<div class="card"><div class="muted">${esc(m.symbol)}</div><div class="v">${m.score.toFixed(1)}</div>
<div>${signed(m.net_flow_30d_usd)} <span class="muted">30d</span></div></div>`).join("")
  let table: string
  if (rank < TIER_RANK.free) {
    table = `<div class="teaser"><strong>See which assets whales are accumulating.</strong>
<p>The asset table ranks every token tracked whales trade by accumulation score, with 7- and 30-day net flows.
Create a free account to see the top ${FREE_ROWS} rows.</p>
<a class="btn" href="/register?next=%2Fpositioning">Sign up free</a> <a href="/login?next=%2Fpositioning">Sign in</a></div>`
  } else if (rank < TIER_RANK.pro) {
    table = `${assetTable(view.assets.slice(0, FREE_ROWS), false)}
<div class="teaser"><strong>The full table and size cohorts are on Pro.</strong>
<p>Pro shows every asset and how mega, large, mid and small wallets position, separately.</p>
<a class="btn" href="/billing">Upgrade to Pro</a></div>`
  } else {
    table = `${assetTable(view.assets, rank >= TIER_RANK.alpha)}
${view.cohorts ? `<h2>Size cohorts</h2><p class="muted">Net flows of tracked wallets by size cohort, all assets.</p>${cohortTable(view.cohorts)}` : ""}
${rank < TIER_RANK.alpha ? `<div class="teaser"><strong>Named accumulator wallets are on Alpha.</strong> <a href="/billing">See plans</a></div>` : ""}`
  }
  return sitePage({ title: "Whale positioning", wide: true, description: "How large Ethereum holders are positioned: accumulation by asset and size cohort." }, `
<h1>Whale positioning</h1>
<p class="muted">Accumulation by tracked whales over the last 7 and 30 days (score 0–100, 50 neutral).${meta.demo ? " <strong>Demo data</strong>: no chain source is configured." : ""}</p>
<div class="cards"><div class="card"><div class="muted">Majors score</div><div class="v">${view.score.toFixed(1)}</div><div>${label(view.score)}</div></div>${majors}</div>
<div class="note"><strong>Cohort divergence ${view.divergence.score.toFixed(1)}</strong> — ${esc(view.divergence.description)}</div>
<h2>Assets</h2>
${table}
<p class="muted">Generated ${esc(meta.generatedAt)}. Observational data, not financial advice.</p>`)
}
