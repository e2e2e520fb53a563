/**
 * The running metrics of the LIVE event (pure; transient state of the playbook-live actor, rebuilt from stored
 * records after a restart): sums per 5-minute bucket from the window start, totals, distinct wallets and the
 * first movers after the timestamp. Idempotent per record (its unique key); a retraction removes a counted record.
 */
import type { Figures, FlowBucket, LiveSnapshot, WhaleRecord } from "../../schema/http/playbook"
import type { FlowCategory } from "../../schema/records"

/** Rounds to cents, as the playbook domain rounds every USD figure it serves (its Stats.cents). */
const cents = (x: number) => Math.round(x * 100) / 100

export const LIVE_BUCKET_MINUTES = 5
export const FASTEST = 10

export interface LiveRecord {
  readonly key: string
  readonly id: number | null
  readonly tx_hash: string
  readonly ts: number
  readonly wallet: string
  readonly wallet_label: string | null
  readonly token: string
  readonly symbol: string
  readonly category: FlowCategory
  readonly usd: number | null
}

interface Sums {
  b: number
  s: number
  d: number
  w: number
  n: number
}

export interface LiveState {
  readonly eventId: number
  readonly title: string
  readonly ts: number
  readonly from: number
  readonly to: number
  readonly seen: Map<string, LiveRecord>
  readonly buckets: Map<number, Sums>
  readonly totals: Sums
  readonly wallets: Map<string, number>
  dirty: boolean
}

export const recordKey = (r: { tx_hash: string; log_index: number; wallet: string; token: string }) =>
  `${r.tx_hash}:${r.log_index}:${r.wallet}:${r.token}`

export const emptyState = (e: { eventId: number; title: string; ts: number; from: number; to: number }): LiveState => ({
  ...e,
  seen: new Map(),
  buckets: new Map(),
  totals: { b: 0, s: 0, d: 0, w: 0, n: 0 },
  wallets: new Map(),
  dirty: true
})

const add = (sums: Sums, r: LiveRecord, sign: 1 | -1) => {
  const usd = (r.usd ?? 0) * sign
  if (r.category === "dex_buy") sums.b += usd
  else if (r.category === "dex_sell") sums.s += usd
  else if (r.category === "exchange_deposit") sums.d += usd
  else sums.w += usd
  sums.n += sign
}

const bucketOf = (s: LiveState, ts: number) => Math.floor((ts - s.from) / (LIVE_BUCKET_MINUTES * 60_000))

/** Counts a record once; records outside the window are ignored. Returns whether the state changed. */
export const apply = (s: LiveState, r: LiveRecord): boolean => {
  if (r.ts < s.from || r.ts >= s.to || s.seen.has(r.key)) return false
  s.seen.set(r.key, r)
  const i = bucketOf(s, r.ts)
  const b = s.buckets.get(i) ?? { b: 0, s: 0, d: 0, w: 0, n: 0 }
  add(b, r, 1)
  s.buckets.set(i, b)
  add(s.totals, r, 1)
  s.wallets.set(r.wallet, (s.wallets.get(r.wallet) ?? 0) + 1)
  s.dirty = true
  return true
}

/** Removes a counted record (a reorg retracted it). Returns whether the state changed. */
export const retract = (s: LiveState, key: string): boolean => {
  const r = s.seen.get(key)
  if (!r) return false
  s.seen.delete(key)
  const i = bucketOf(s, r.ts)
  const b = s.buckets.get(i)
  if (b) {
    add(b, r, -1)
    if (b.n === 0) s.buckets.delete(i)
  }
  add(s.totals, r, -1)
  const n = (s.wallets.get(r.wallet) ?? 1) - 1
  if (n <= 0) s.wallets.delete(r.wallet)
  else s.wallets.set(r.wallet, n)
  s.dirty = true
  return true
}

const figures = (x: Sums): Omit<Figures, "whales_active"> => ({
  dex_buy_usd: cents(x.b),
  dex_sell_usd: cents(x.s),
  exchange_deposit_usd: cents(x.d),
  exchange_withdraw_usd: cents(x.w),
  net_flow_usd: cents(x.b - x.s + x.w - x.d),
  records: x.n
})

/** The snapshot published on `playbook:live`: buckets with records (oldest first), totals, first movers. */
export const snapshot = (s: LiveState, now: number): LiveSnapshot => {
  const buckets: Array<FlowBucket> = [...s.buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([i, x]) => ({ start: new Date(s.from + i * LIVE_BUCKET_MINUTES * 60_000).toISOString(), ...figures(x) }))
  const fastest: Array<WhaleRecord> = [...s.seen.values()]
    .filter((r) => r.ts >= s.ts)
    .sort((a, b) => a.ts - b.ts || (a.id ?? 0) - (b.id ?? 0) || a.key.localeCompare(b.key))
    .slice(0, FASTEST)
    .map((r) => ({
      id: r.id ?? 0, tx_hash: r.tx_hash, ts: new Date(r.ts).toISOString(), wallet: r.wallet, wallet_label: r.wallet_label,
      token: r.token, symbol: r.symbol, category: r.category, usd: r.usd === null ? null : cents(r.usd), seconds_from_event: (r.ts - s.ts) / 1000
    }))
  return {
    event_id: s.eventId,
    title: s.title,
    timestamp: new Date(s.ts).toISOString(),
    as_of: new Date(now).toISOString(),
    buckets,
    totals: { ...figures(s.totals), whales_active: s.wallets.size },
    fastest
  }
}
