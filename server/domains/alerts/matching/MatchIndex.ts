/**
 * Matching records and domain events to subscriptions, in memory, without a scan of all alerts.
 *
 * `MatchIndex` keeps the chain-record alerts in buckets keyed by what a record names — `category|token` (the token's
 * address, its symbol, or `*` for any token) and `wallet` — each bucket sorted by `min_usd`, so a record reaches
 * only the alerts of its own keys and stops at the first threshold above its USD value: O(keys · log n + matches).
 * Event alerts (index crossings, playbook, picks) have their own small structures. Convergence alerts are
 * evaluated by `ConvergenceWindow` on the buys the index hands it.
 *
 * `matchesRecord`/`matchesEvent` are the plain predicates: the index must give exactly the alerts for which they
 * hold (tests check it), and `naiveMatch` — a scan of every alert with them — is the benchmark's baseline.
 *
 * Pure: no Effect, no clock (callers pass `now`), no I/O.
 */
import type { AlertSpec, Channel } from "../../../../schema/http/alerts"
import { isFlowCategory, type WhaleCategory, type WhaleTx } from "../../../../schema/records"

export type Category = WhaleCategory

/** What matching needs of a `chain.tx` record. */
export type MatchRecord = Readonly<Pick<WhaleTx, "wallet" | "token" | "symbol" | "category" | "usd">>

/** What matching needs of a domain event. */
export type MatchEvent =
  | { readonly _tag: "IndexValue"; readonly value: number; readonly previous: number | null }
  | { readonly _tag: "PlaybookEventStatus"; readonly category: string; readonly severity: number; readonly status: string }
  | { readonly _tag: "PickFlagged"; readonly token: string; readonly symbol: string; readonly whales: number; readonly conviction: number }

export interface Sub {
  readonly id: number
  readonly userId: number
  readonly spec: AlertSpec
  readonly channels: ReadonlyArray<Channel>
  readonly enabled: boolean
  /** Epoch ms, or null. */
  readonly snoozedUntil: number | null
  /**
   * A small number of its own in the index that holds it (set by `upsert`, reused after `remove`): callers keep
   * per-alert state of a pass over many records in flat arrays instead of maps.
   */
  slot?: number
}

/** `ETH` and `WETH` name the same token (native ETH is recorded as WETH). */
export const symbolKey = (symbol: string) => {
  const s = symbol.toUpperCase()
  return s === "WETH" ? "$ETH" : `$${s}`
}

/** The key of a token reference in params: an address as is, a symbol as `$SYMBOL`, none as `*`. */
export const refKey = (ref: string | null) => (ref === null ? "*" : ref.startsWith("0x") ? ref : symbolKey(ref))

const tokenMatches = (ref: string | null, token: string, symbol: string) =>
  ref === null || (ref.startsWith("0x") ? ref === token.toLowerCase() : symbolKey(ref) === symbolKey(symbol))

const CATEGORIES_OF_SIDE = { buy: ["dex_buy"], sell: ["dex_sell"], any: ["dex_buy", "dex_sell"] } as const
const CATEGORIES_OF_DIRECTION = { deposit: ["exchange_deposit"], withdraw: ["exchange_withdraw"], any: ["exchange_deposit", "exchange_withdraw"] } as const

/** The plain predicate of the chain-record types (convergence is decided by its window, not here). */
export const matchesRecord = (spec: AlertSpec, r: MatchRecord): boolean => {
  // Exchange housekeeping (hot ↔ cold, sweeps, exchange to exchange) is no flow: no alert fires on it.
  if (!isFlowCategory(r.category)) return false
  const category = r.category
  const usd = r.usd ?? 0
  switch (spec.type) {
    case "whale_trade": {
      const p = spec.params
      return (CATEGORIES_OF_SIDE[p.side] as ReadonlyArray<string>).includes(r.category) && usd >= p.min_usd && tokenMatches(p.token, r.token, r.symbol)
    }
    case "exchange_flow": {
      const p = spec.params
      return (CATEGORIES_OF_DIRECTION[p.direction] as ReadonlyArray<string>).includes(r.category) && usd >= p.min_usd && tokenMatches(p.token, r.token, r.symbol)
    }
    case "wallet_activity": {
      const p = spec.params
      return p.wallet === r.wallet && usd >= p.min_usd && (p.categories === null || p.categories.includes(category))
    }
    default:
      return false
  }
}

/** Whether a convergence alert watches this buy at all (its token; the threshold is per buy). */
export const convergenceWatches = (spec: AlertSpec, r: MatchRecord): boolean =>
  spec.type === "convergence" && r.category === "dex_buy" && tokenMatches(spec.params.token, r.token, r.symbol)

/** The plain predicate of the event types. */
export const matchesEvent = (spec: AlertSpec, e: MatchEvent): boolean => {
  switch (spec.type) {
    case "index_cross": {
      if (e._tag !== "IndexValue" || e.previous === null) return false
      const { level, direction } = spec.params
      const up = e.previous < level && e.value >= level
      const down = e.previous > level && e.value <= level
      return direction === "up" ? up : direction === "down" ? down : up || down
    }
    case "playbook_live":
      return e._tag === "PlaybookEventStatus" && e.status === "LIVE" && e.severity >= spec.params.min_severity &&
        (spec.params.category === null || spec.params.category.toLowerCase() === e.category.toLowerCase())
    case "pick_flagged":
      return e._tag === "PickFlagged" && e.whales >= spec.params.min_whales && e.conviction >= spec.params.min_conviction &&
        tokenMatches(spec.params.token, e.token, e.symbol)
    default:
      return false
  }
}

/** Whether an alert may fire now (enabled, not snoozed, its owner not muted). */
export const isLive = (sub: Sub, now: number, mutedUntil: number | undefined) =>
  sub.enabled && (sub.snoozedUntil === null || sub.snoozedUntil <= now) && (mutedUntil === undefined || mutedUntil <= now)

// ---------------------------------------------------------------------------------------------------------------

interface Entry {
  readonly sub: Sub
  readonly minUsd: number
}

/** Entries sorted by `minUsd`; the matches of a value are a prefix. */
class Bucket {
  readonly entries: Array<Entry> = []
  add(entry: Entry) {
    let lo = 0
    let hi = this.entries.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.entries[mid]!.minUsd <= entry.minUsd) lo = mid + 1
      else hi = mid
    }
    this.entries.splice(lo, 0, entry)
  }
  remove(id: number) {
    const i = this.entries.findIndex((e) => e.sub.id === id)
    if (i >= 0) this.entries.splice(i, 1)
  }
}

const push = <K>(map: Map<K, Bucket>, key: K, entry: Entry) => {
  let bucket = map.get(key)
  if (!bucket) map.set(key, (bucket = new Bucket()))
  bucket.add(entry)
}
const pull = <K>(map: Map<K, Bucket>, key: K, id: number) => {
  const bucket = map.get(key)
  if (!bucket) return
  bucket.remove(id)
  if (bucket.entries.length === 0) map.delete(key)
}

/** Where a subscription sits in the index (so it can be taken out again). */
const placesOf = (spec: AlertSpec): ReadonlyArray<readonly ["cat" | "wallet" | "conv" | "index" | "playbook" | "pick", string]> => {
  switch (spec.type) {
    case "whale_trade":
      return CATEGORIES_OF_SIDE[spec.params.side].map((c) => ["cat", `${c}|${refKey(spec.params.token)}`] as const)
    case "exchange_flow":
      return CATEGORIES_OF_DIRECTION[spec.params.direction].map((c) => ["cat", `${c}|${refKey(spec.params.token)}`] as const)
    case "wallet_activity":
      return [["wallet", spec.params.wallet]]
    case "convergence":
      return [["conv", refKey(spec.params.token)]]
    case "index_cross":
      return [["index", ""]]
    case "playbook_live":
      return [["playbook", ""]]
    case "pick_flagged":
      return [["pick", refKey(spec.params.token)]]
  }
}

const minUsdOf = (spec: AlertSpec): number => {
  switch (spec.type) {
    case "whale_trade":
    case "exchange_flow":
    case "wallet_activity":
    case "convergence":
      return spec.params.min_usd
    case "index_cross":
      return spec.params.level
    default:
      return 0
  }
}

export class MatchIndex {
  private readonly subs = new Map<number, Sub>()
  private readonly freeSlots: Array<number> = []
  private slotCount = 0
  private readonly maps = {
    cat: new Map<string, Bucket>(),
    wallet: new Map<string, Bucket>(),
    conv: new Map<string, Bucket>(),
    index: new Map<string, Bucket>(),
    playbook: new Map<string, Bucket>(),
    pick: new Map<string, Bucket>()
  }

  get size() {
    return this.subs.size
  }
  get(id: number) {
    return this.subs.get(id)
  }
  all(): IterableIterator<Sub> {
    return this.subs.values()
  }

  /** Slots given out so far (each `Sub.slot` is below this). */
  get slots() {
    return this.slotCount
  }

  /** Adds or replaces a subscription. */
  upsert(sub: Sub) {
    this.remove(sub.id)
    sub.slot = this.freeSlots.pop() ?? this.slotCount++
    this.subs.set(sub.id, sub)
    const entry = { sub, minUsd: minUsdOf(sub.spec) }
    for (const [kind, key] of placesOf(sub.spec)) push(this.maps[kind], key, entry)
  }

  remove(id: number) {
    const old = this.subs.get(id)
    if (!old) return
    this.subs.delete(id)
    this.freeSlots.push(old.slot!)
    for (const [kind, key] of placesOf(old.spec)) pull(this.maps[kind], key, id)
  }

  /** Record alerts (whale trade, exchange flow, wallet activity) whose predicate holds; enabled or not. */
  matchRecord(r: MatchRecord, out: Array<Sub> = []): Array<Sub> {
    if (!isFlowCategory(r.category)) return out
    const category = r.category
    const usd = r.usd ?? 0
    const token = r.token.toLowerCase()
    for (const key of [`${r.category}|${token}`, `${r.category}|${symbolKey(r.symbol)}`, `${r.category}|*`]) {
      const bucket = this.maps.cat.get(key)
      if (!bucket) continue
      for (const e of bucket.entries) {
        if (e.minUsd > usd) break
        out.push(e.sub)
      }
    }
    const bucket = this.maps.wallet.get(r.wallet)
    if (bucket) {
      for (const e of bucket.entries) {
        if (e.minUsd > usd) break
        const cats = (e.sub.spec as Extract<AlertSpec, { type: "wallet_activity" }>).params.categories
        if (cats === null || cats.includes(category)) out.push(e.sub)
      }
    }
    return out
  }

  /** Convergence alerts watching this record's token (only for buys); each judges its own threshold and window. */
  convergenceFor(r: MatchRecord): Array<Sub> {
    if (r.category !== "dex_buy") return []
    const out: Array<Sub> = []
    for (const key of [r.token.toLowerCase(), symbolKey(r.symbol), "*"]) {
      const bucket = this.maps.conv.get(key)
      if (bucket) for (const e of bucket.entries) out.push(e.sub)
    }
    return out
  }

  /** Whether any convergence alert exists (the window is kept only then). */
  get hasConvergence() {
    return this.maps.conv.size > 0
  }

  matchEvent(e: MatchEvent): Array<Sub> {
    switch (e._tag) {
      case "IndexValue": {
        if (e.previous === null) return []
        const lo = Math.min(e.previous, e.value)
        const hi = Math.max(e.previous, e.value)
        const entries = this.maps.index.get("")?.entries ?? []
        const out: Array<Sub> = []
        // Levels sorted ascending: only those inside [lo, hi] can have been crossed.
        for (const entry of entries) {
          if (entry.minUsd < lo) continue
          if (entry.minUsd > hi) break
          if (matchesEvent(entry.sub.spec, e)) out.push(entry.sub)
        }
        return out
      }
      case "PlaybookEventStatus":
        if (e.status !== "LIVE") return []
        return (this.maps.playbook.get("")?.entries ?? []).map((x) => x.sub).filter((s) => matchesEvent(s.spec, e))
      case "PickFlagged": {
        const out: Array<Sub> = []
        for (const key of [e.token.toLowerCase(), symbolKey(e.symbol), "*"]) {
          for (const x of this.maps.pick.get(key)?.entries ?? []) if (matchesEvent(x.sub.spec, e)) out.push(x.sub)
        }
        return out
      }
    }
  }
}

/** The baseline: every subscription checked against the record with the plain predicate. */
export const naiveMatch = (subs: Iterable<Sub>, r: MatchRecord): Array<Sub> => {
  const out: Array<Sub> = []
  for (const s of subs) if (matchesRecord(s.spec, r)) out.push(s)
  return out
}
