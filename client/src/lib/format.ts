/** Numbers as traders read them: compact USD, signed flows, relative times, short addresses. */

const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 2 })
const compact1 = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 })
const plain = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 })

/** `$1.24M`, `$950K`, `$12.5`; `—` when unknown. */
export const usd = (n: number | null | undefined): string => {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—"
  const abs = Math.abs(n)
  const sign = n < 0 ? "-" : ""
  return `${sign}$${abs >= 1000 ? compact.format(abs) : plain.format(abs)}`
}

/** `+$1.2M` / `-$340K` / `$0`: the sign always shown for flows. */
export const signedUsd = (n: number | null | undefined): string => {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—"
  if (n === 0) return "$0"
  const abs = Math.abs(n)
  return `${n > 0 ? "+" : "−"}$${abs >= 1000 ? compact1.format(abs) : plain.format(abs)}`
}

const SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉"

/** A token price: more digits for small prices; leading zeros counted as on DEX screens (`$0.0₅906`). */
export const price = (n: number | null | undefined): string => {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—"
  if (n >= 1000) return `$${plain.format(Math.round(n))}`
  if (n >= 1) return `$${n.toFixed(2)}`
  if (n >= 0.001 || n <= 0) return `$${n.toPrecision(3)}`
  const [mantissa, exponent] = n.toExponential(2).split("e-") as [string, string]
  const zeros = String(Number(exponent) - 1).split("").map((d) => SUBSCRIPT[Number(d)]).join("")
  return `$0.0${zeros}${mantissa.replace(".", "")}`
}

/** Token amounts: `12.5`, `1.2M`. */
export const amount = (text: string): string => {
  const n = Number(text)
  if (!Number.isFinite(n)) return text
  return Math.abs(n) >= 10_000 ? compact.format(n) : plain.format(n)
}

/** `just now`, `42s ago`, `5m ago`, `3h ago`, `2d ago` relative to `now`. */
export const ago = (iso: string, now: number): string => {
  const t = Date.parse(iso)
  if (!Number.isFinite(t)) return "—"
  const s = Math.max(0, Math.round((now - t) / 1000))
  if (s < 5) return "just now"
  if (s < 60) return `${s}s ago`
  if (s < 3600) return `${Math.floor(s / 60)}m ago`
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`
  return `${Math.floor(s / 86_400)}d ago`
}

/** `0x28c6…1d60` (already masked addresses pass through). */
export const shortAddress = (a: string): string => (a.length > 14 && !a.includes("…") ? `${a.slice(0, 6)}…${a.slice(-4)}` : a)

export const pct = (n: number, digits = 0): string => `${n.toFixed(digits)}%`

/** Time until something, as a person says it: `in 12 d 5 h`, `in 5 h`, `in 40 min`, `now`. */
export const countdown = (hours: number): string => {
  if (!Number.isFinite(hours) || hours <= 0) return "now"
  if (hours < 1) return `in ${Math.max(1, Math.round(hours * 60))} min`
  if (hours < 48) return `in ${Math.round(hours)} h`
  const d = Math.floor(hours / 24)
  const h = Math.round(hours - d * 24)
  return h === 0 ? `in ${d} d` : h === 24 ? `in ${d + 1} d` : `in ${d} d ${h} h`
}

/** A change in percent, signed as flows are: `+3.2 %`, `−12.0 %`, `0.0 %`; `—` when unknown. */
export const signedPct = (n: number | null | undefined, digits = 1): string => {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—"
  const s = Math.abs(n).toFixed(digits)
  const zero = Number(s) === 0
  return `${zero ? "" : n > 0 ? "+" : "−"}${s} %`
}

/** Exact money, to the cent: `$1,592.00`, `−$48.10` (balances, fills; compact figures use `usd`). */
export const money = (n: number | null | undefined): string => {
  if (n === null || n === undefined || !Number.isFinite(n)) return "—"
  return `${n < 0 ? "−" : ""}$${Math.abs(n).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
}

/** A category as a trader says it. */
export const categoryLabel: Record<string, string> = {
  dex_buy: "Buy",
  dex_sell: "Sell",
  exchange_withdraw: "Withdraw",
  exchange_deposit: "Deposit",
  exchange_housekeeping: "Exchange internal"
}

/** Whether a category moves the token towards whales (buy, withdraw from exchange). */
export const isInflow = (category: string) => category === "dex_buy" || category === "exchange_withdraw"

/** `1h 5m` durations for uptime and delays. */
export const duration = (seconds: number): string => {
  if (seconds < 60) return `${Math.round(seconds)}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${Math.round(seconds % 60)}s`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`
  return `${Math.floor(seconds / 86_400)}d ${Math.floor((seconds % 86_400) / 3600)}h`
}

/** A price-axis label: `$2,960.00`, `$2,708.12`, `$15.42`, `$0.812345`, `$0.0000123456` (enough digits to tell ticks apart). */
export const axisPrice = (n: number): string => {
  if (!Number.isFinite(n)) return ""
  const abs = Math.abs(n)
  // Up to 6 significant digits (the prices' own precision), so close ticks of a flat price still differ.
  const digits = abs >= 100_000 ? 0 : abs >= 1000 ? 2 : abs >= 1 ? 4 : abs === 0 ? 2 : Math.min(12, 5 - Math.floor(Math.log10(abs)))
  const least = abs >= 1 ? Math.min(2, digits) : digits
  return `${n < 0 ? "−" : ""}$${abs.toLocaleString("en-US", { minimumFractionDigits: least, maximumFractionDigits: digits })}`
}

/** A USD-flow axis label: `+$1.2M`, `−$350K`, `$0`. */
export const axisUsd = (n: number): string => signedUsd(Math.round(n))

/** How the console names a token: WETH (and native ETH, recorded as WETH) is shown as ETH everywhere. */
export const WETH_ADDRESS = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
export const tokenName = (token: string, symbol: string): string =>
  token.toLowerCase() === WETH_ADDRESS ? "ETH" : symbol

/**
 * The price formats of chart series (lightweight-charts' `priceFormat`): every chart axis and crosshair label goes
 * through the formatters above, never the library's default `49200.00`.
 */
export const chartFormat = {
  /** Token prices: `$2,960`, `$0.8123`, `$0.00001234`. */
  price: { type: "custom", formatter: axisPrice, minMove: 1e-12 },
  /** Signed USD flows: `+$1.2M`, `−$350K`. */
  flow: { type: "custom", formatter: axisUsd, minMove: 1 },
  /** Amounts of USD: `$1.2M`, `$950`. */
  usd: { type: "custom", formatter: (n: number) => usd(Math.round(n)), minMove: 1 },
  /** Signed percentages: `+12 %`, `−3 %`. */
  pct: { type: "custom", formatter: (n: number) => signedPct(n, 0), minMove: 0.01 }
} as const
