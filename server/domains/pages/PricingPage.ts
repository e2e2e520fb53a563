/**
 * The public pricing page (/pricing): the tiers of /api/pricing side by side — price per month and per year (the
 * founding price where there is one), API requests per day, alerts, and what each tier adds — with the way in
 * (register, or the billing page for a signed-in user). Server-rendered in the site layout, no script.
 */
import type { PricingResponse, PricingTier } from "../../../schema/http/pricing"
import { esc, sitePage } from "./Site"

/** Plain-language names of the tiers' feature gates (the `tiers.features` column). */
const FEATURES: Readonly<Record<string, string>> = {
  feed_delayed: "Live whale feed (delayed)",
  whale_index: "Whale Sentiment Index",
  top_tokens: "Top tokens by whale volume",
  watchlist: "Watchlist",
  alerts_basic: "Alerts in the console",
  feed_realtime: "Real-time feed",
  positioning_full: "Full positioning by cohort",
  alerts_email: "E-mail alerts",
  alerts_messenger: "Messenger alerts",
  backtest: "Backtests",
  named_accumulators: "Named top accumulators",
  picks: "Graded picks",
  api_keys: "Data API keys",
  custom_wallets: "Your own wallets monitored",
  playbook: "Event playbook",
  echo: "Echo copy-trading simulator"
}

const dollars = (usd: number) => `$${usd.toLocaleString("en-US", { maximumFractionDigits: 2 })}`
const count = (n: number) => n.toLocaleString("en-US")

const priceCell = (t: PricingTier) =>
  t.monthly_usd === 0
    ? `<strong>Free</strong>`
    : `<strong>${dollars(t.monthly_usd)}</strong> / month<br><span class="muted">${dollars(t.yearly_usd)} / year</span>` +
      (t.founding_yearly_usd === null ? "" : `<br><span class="muted">founding: ${dollars(t.founding_yearly_usd)} / year</span>`)

export const pricingPage = (pricing: PricingResponse): string => {
  const tiers = [...pricing.tiers].sort((a, b) => a.rank - b.rank)
  const all = [...new Set(tiers.flatMap((t) => t.features))]
  const head = `<tr><th></th>${tiers.map((t) => `<th>${esc(t.display_name)}<br><span class="muted">${esc(t.tagline)}</span></th>`).join("")}</tr>`
  const row = (label: string, cell: (t: PricingTier) => string) => `<tr><td>${esc(label)}</td>${tiers.map((t) => `<td>${cell(t)}</td>`).join("")}</tr>`
  const rows = [
    row("Price", priceCell),
    row("Alerts", (t) => count(t.alert_limit)),
    row("Data API requests / day", (t) => (t.api_requests_per_day > 0 ? count(t.api_requests_per_day) : "—")),
    ...all.map((f) => row(FEATURES[f] ?? f.replaceAll("_", " "), (t) => (t.features.includes(f) ? "✓" : "—"))),
    row("", (t) => (t.monthly_usd === 0 ? `<a class="btn" href="/register">Start free</a>` : `<a class="btn" href="/billing?plan=${esc(t.name)}">Choose ${esc(t.display_name)}</a>`))
  ]
  // Phones get one card per tier (what it adds to the tier below) instead of the wide table.
  const cards = tiers.map((t, i) => {
    const below = i === 0 ? [] : tiers[i - 1]!.features
    const added = t.features.filter((f) => !below.includes(f)).map((f) => `<li>${esc(FEATURES[f] ?? f.replaceAll("_", " "))}</li>`).join("")
    return `<section class="tier-card"><h2>${esc(t.display_name)} <span class="muted">· ${esc(t.tagline)}</span></h2>
<p>${priceCell(t)}</p><p>${count(t.alert_limit)} alerts${t.api_requests_per_day > 0 ? ` · ${count(t.api_requests_per_day)} data API requests a day` : ""}</p>
<p class="muted">${i === 0 ? "Includes:" : `Everything in ${esc(tiers[i - 1]!.display_name)}, plus:`}</p><ul>${added}</ul>
${t.monthly_usd === 0 ? `<a class="btn" href="/register">Start free</a>` : `<a class="btn" href="/billing?plan=${esc(t.name)}">Choose ${esc(t.display_name)}</a>`}</section>`
  }).join("")
  return sitePage(
    { title: "Pricing", wide: true, description: "Whale Intelligence plans: free, Pro, Alpha and Whale, with prices, alerts and data API limits." },
    `<h1>Pricing</h1>
<p>Prices in ${esc(pricing.currency)}. Yearly plans cost ten months; founding members keep their yearly price. Cancel any time from
<a href="/billing">billing</a>. The data API is described in the <a href="/docs">API documentation</a>.</p>
<div class="scroll pricing-table"><table class="pricing">${head}${rows.join("")}</table></div>
<div class="pricing-cards">${cards}</div>
<p class="muted">Observational on-chain data about large Ethereum holders. Not financial advice.</p>`
  )
}
