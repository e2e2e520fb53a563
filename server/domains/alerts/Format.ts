/**
 * What a delivery says. `contentOf*` builds the stored content of a delivery (title, summary, data) when it is
 * matched; `messengerText`, `emailOf`, `webhookBody` and `digestOf` render it per channel. Pure.
 */
import type { AlertType } from "../../../schema/http/alerts"
import type { WhaleTx } from "../../../schema/records"
import type { Category } from "./matching/MatchIndex"

export interface Content {
  readonly type: AlertType
  readonly title: string
  readonly summary: string
  readonly url: string | null
  readonly data: Record<string, unknown>
}

export const EXPLORER = "https://etherscan.io"

export const usd = (v: number | null | undefined): string => {
  if (v === null || v === undefined || !Number.isFinite(v)) return "an unpriced amount"
  const a = Math.abs(v)
  const [n, unit] = a >= 1e9 ? [a / 1e9, "B"] : a >= 1e6 ? [a / 1e6, "M"] : a >= 1e3 ? [a / 1e3, "K"] : [a, ""]
  const digits = unit === "" ? 0 : n >= 100 ? 0 : n >= 10 ? 1 : 2
  return `${v < 0 ? "-" : ""}$${n.toFixed(digits)}${unit}`
}

export const shortAddress = (a: string) => (a.length > 12 ? `${a.slice(0, 6)}…${a.slice(-4)}` : a)

const displaySymbol = (s: string) => (s.toUpperCase() === "WETH" ? "ETH" : s)

const VERB: Record<Category, string> = {
  dex_buy: "bought",
  dex_sell: "sold",
  exchange_deposit: "deposited",
  exchange_withdraw: "withdrew",
  exchange_housekeeping: "moved between exchange wallets"
}

/** What a record's delivery says of it. */
export type RecordFacts = Readonly<Pick<WhaleTx, "tx_hash" | "log_index" | "block" | "ts" | "wallet" | "wallet_label" | "token" | "symbol" |
  "category" | "amount" | "usd" | "venue" | "source">>

/** The explorer page of a record's transaction; none for the demo chain's generated transactions. */
export const explorerUrl = (r: Pick<RecordFacts, "tx_hash" | "source">): string | null => (r.source === "demo" ? null : `${EXPLORER}/tx/${r.tx_hash}`)

/** Who a wallet is, as the identity engine holds it (server/domains/identity; AlertWalletFacts loads it). */
export interface WalletWho {
  readonly class: string
  readonly class_source: string | null
  readonly label: string | null
  readonly label_source: string | null
  readonly exchange: string | null
  /** The strongest reason for the class, one sentence. */
  readonly reason: string | null
}

const SOURCE_NAME: Record<string, string> = {
  seed: "seed list", label_file: "label file", rule: "behaviour rule", operator: "operator"
}
const sourceName = (s: string | null) => (s === null ? "unknown source" : SOURCE_NAME[s] ?? s)

/** "Who: whale (seed list); label "Alpha Whale" (seed list). Tracked wallet (seed)." — class, label with source, why. */
export const whoLine = (w: WalletWho): string => {
  const cls = `${w.class.replace("_", " ")}${w.exchange ? ` (${w.exchange})` : ""}, by ${sourceName(w.class_source)}`
  const label = w.label === null ? "" : `; label "${w.label}" from ${sourceName(w.label_source)}`
  const reason = w.reason === null ? "" : `. ${w.reason.replace(/\.$/, "")}`
  return `Who: ${cls}${label}${reason}.`
}

const recordData = (r: RecordFacts, who: WalletWho | null) => ({
  tx_hash: r.tx_hash, log_index: r.log_index, block: r.block, ts: r.ts, wallet: r.wallet, wallet_label: r.wallet_label,
  token: r.token, symbol: displaySymbol(r.symbol), category: r.category, amount: r.amount, usd: r.usd, venue: r.venue, source: r.source,
  ...(who === null ? {} : { identity: who })
})

/** A whale trade, an exchange flow or a wallet's activity; with `identity`, who the wallet is and why. */
export const contentOfRecord = (type: "whale_trade" | "exchange_flow" | "wallet_activity", r: RecordFacts, identity: WalletWho | null = null): Content => {
  const who = r.wallet_label ?? identity?.label ?? shortAddress(r.wallet)
  const sym = displaySymbol(r.symbol)
  const where = r.venue ? (r.category.startsWith("exchange") ? (r.category === "exchange_deposit" ? ` to ${r.venue}` : ` from ${r.venue}`) : ` on ${r.venue}`) : ""
  const title =
    type === "whale_trade"
      ? `Whale ${r.category === "dex_buy" ? "buy" : "sell"}: ${usd(r.usd)} of ${sym}`
      : type === "exchange_flow"
        ? `Exchange ${r.category === "exchange_deposit" ? "deposit" : "withdrawal"}: ${usd(r.usd)} of ${sym}`
        : `Wallet activity: ${who}`
  return {
    type,
    title,
    summary: `${who} ${VERB[r.category]} ${usd(r.usd)} of ${sym}${where} (block ${r.block})${identity === null ? "" : ` ${whoLine(identity)}`}`,
    url: explorerUrl(r),
    data: recordData(r, identity)
  }
}

export const contentOfConvergence = (
  r: RecordFacts,
  c: { readonly wallets: ReadonlyArray<string>; readonly totalUsd: number; readonly windowMinutes: number; readonly labels: ReadonlyArray<string> }
): Content => {
  const sym = displaySymbol(r.symbol)
  return {
    type: "convergence",
    title: `Convergence: ${c.wallets.length} whales bought ${sym} within ${c.windowMinutes} min`,
    summary: `${c.labels.slice(0, 5).join(", ")}${c.labels.length > 5 ? ` and ${c.labels.length - 5} more` : ""} bought ${usd(c.totalUsd)} of ${sym} in all`,
    url: `${EXPLORER}/token/${r.token}`,
    data: { ...recordData(r, null), wallets: c.wallets, total_usd: c.totalUsd, window_minutes: c.windowMinutes }
  }
}

export const contentOfIndexCross = (e: { readonly value: number; readonly previous: number; readonly at: string }, level: number): Content => ({
  type: "index_cross",
  title: `Whale index crossed ${level} ${e.value >= e.previous ? "upwards" : "downwards"}: ${e.value.toFixed(1)}`,
  summary: `The Whale Sentiment Index moved from ${e.previous.toFixed(1)} to ${e.value.toFixed(1)}`,
  url: null,
  data: { value: e.value, previous: e.previous, level, at: e.at }
})

export const contentOfPlaybook = (e: { readonly event_id: number; readonly title: string; readonly category: string; readonly severity: number; readonly at: string }): Content => ({
  type: "playbook_live",
  title: `LIVE: ${e.title}`,
  summary: `A ${e.category} event (severity ${e.severity}) is live; whale flows are being tracked in the playbook`,
  url: `/playbook`,
  data: { event_id: e.event_id, title: e.title, category: e.category, severity: e.severity, at: e.at }
})

export const contentOfPick = (e: { readonly pick_id: number; readonly token: string; readonly symbol: string; readonly whales: number; readonly conviction: number; readonly entry_price: number | null; readonly flagged_at: string }): Content => ({
  type: "pick_flagged",
  title: `New pick: ${displaySymbol(e.symbol)}`,
  summary: `${e.whales} whale${e.whales === 1 ? "" : "s"} flagged ${displaySymbol(e.symbol)}, conviction ${e.conviction}${e.entry_price !== null ? `, entry ${e.entry_price < 1 ? e.entry_price.toPrecision(3) : e.entry_price.toFixed(2)} USD` : ""}`,
  url: `${EXPLORER}/token/${e.token}`,
  data: { ...e }
})

// ---------------------------------------------------------------------------------------------------------------

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** The messenger text (Bot API `parse_mode: HTML`). */
export const messengerText = (c: { readonly title: string; readonly summary: string; readonly url: string | null }, opts: { folded?: number; test?: boolean; baseUrl?: string } = {}) => {
  const link = c.url === null ? null : c.url.startsWith("/") ? (opts.baseUrl ? `${opts.baseUrl}${c.url}` : null) : c.url
  return [
    `${opts.test ? "🧪 " : "🐋 "}<b>${escapeHtml(c.title)}</b>`,
    escapeHtml(c.summary),
    ...(opts.folded ? [`<i>+${opts.folded} more match${opts.folded === 1 ? "" : "es"} of this alert during its cooldown</i>`] : []),
    ...(link ? [`<a href="${escapeHtml(link)}">${link.startsWith(EXPLORER) ? "View on Etherscan" : "Open"}</a>`] : [])
  ].join("\n")
}

export const emailOf = (c: { readonly title: string; readonly summary: string; readonly url: string | null }, baseUrl: string, opts: { folded?: number } = {}) => {
  const link = c.url === null ? null : c.url.startsWith("/") ? `${baseUrl}${c.url}` : c.url
  const folded = opts.folded ? `\n(+${opts.folded} more matches of this alert during its cooldown)` : ""
  const text = `${c.summary}${folded}\n${link ? `\n${link}\n` : ""}\nManage your alerts: ${baseUrl}/alerts\nInformational and observational only, not financial advice.`
  const html = `<p><strong>${escapeHtml(c.title)}</strong></p><p>${escapeHtml(c.summary)}${folded ? `<br><em>${escapeHtml(folded.trim())}</em>` : ""}</p>` +
    (link ? `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` : "") +
    `<p style="color:#666;font-size:12px">Manage your alerts: <a href="${baseUrl}/alerts">${baseUrl}/alerts</a>. Informational and observational only, not financial advice.</p>`
  return { subject: `[Whale alert] ${c.title}`, text, html }
}

/** The JSON body of a webhook delivery. */
/** One alert as a webhook event: what a message's body holds alone, or one item of a batch. */
export interface WebhookEvent {
  readonly id: string
  readonly alertId: number | null
  readonly type: AlertType
  readonly title: string
  readonly summary: string
  readonly url: string | null
  readonly data: unknown
  readonly eventAt: string
  readonly test: boolean
}

const webhookEvent = (d: WebhookEvent) => ({
  type: d.test ? "alert.test" : `alert.${d.type}`,
  data: { delivery_id: d.id, alert_id: d.alertId, alert_type: d.type, title: d.title, summary: d.summary, url: d.url, event_at: d.eventAt, details: d.data }
})

/** A webhook message of one alert: `{type: "alert.<type>", timestamp, data}`. */
export const webhookBody = (d: WebhookEvent) => {
  const e = webhookEvent(d)
  return JSON.stringify({ type: e.type, timestamp: new Date().toISOString(), data: e.data })
}

/**
 * A webhook message of several alerts for one endpoint (sent together in one round): `{type: "alert.batch",
 * timestamp, data: {count, events}}`, each event `{type, data}` as the message of that alert alone would carry.
 */
export const webhookBatchBody = (ds: ReadonlyArray<WebhookEvent>) =>
  JSON.stringify({ type: "alert.batch", timestamp: new Date().toISOString(), data: { count: ds.length, events: ds.map(webhookEvent) } })

/** The one message an hour's overflow becomes. */
export const digestOf = (items: ReadonlyArray<{ readonly title: string }>, total: number, hourStart: number) => {
  const shown = items.slice(0, 10)
  const hour = new Date(hourStart).toISOString().slice(11, 16)
  return {
    title: `Digest: ${total} more alert${total === 1 ? "" : "s"} in the hour from ${hour} UTC`,
    summary: shown.map((i) => `• ${i.title}`).join("\n") + (total > shown.length ? `\n… and ${total - shown.length} more in your alert history` : ""),
    url: "/alerts"
  }
}
