/**
 * Many records at once, with the result of handling them one at a time (the picks-grader's mailbox reads and a
 * rebuild's pages). Before, each record cost ~3 statements (store, price marks, open pick or exit candidates, window
 * trades): ~7,000 for a worst-case block. Here a read costs a handful: the state the rules need is read once for the
 * read's tokens (before its records are stored), and each record's view is that state plus the read's records before
 * it, kept in memory in the order the database would give. The rare steps that read or write more (a flag, a grade,
 * an exit) first store what the sequence would have stored by then, so they see the same rows.
 *
 * Windows count whales' trades only (`whale_counted`: the stored ones in SQL, the read's own by one lookup of its
 * wallets). Order-preserving facts this rests on: a price mark only touches picks flagged before its record and GREATEST/LEAST
 * commute, so marks are written together before each flag or grade and at the end; the window of a record is the
 * stored trades plus the read's earlier trades (a stored copy of a redelivered record counts once); a grade frees its
 * token and changes exits of nothing.
 */
import { Effect } from "effect"
import type { PicksBatchRepo, ExitPick, KeyedTrade, PriceMark } from "./BatchRepo"
import { recordKey, type RecordRow } from "./Repo"
import { decideFlag, DAY_MS, EXIT_MS, exitOf, HORIZON_MS, type RuleSettings, type WindowTrade } from "./Rules"

export type Mode = "live" | "rebuild"

export interface IngestSteps {
  readonly batch: PicksBatchRepo
  readonly rules: RuleSettings
  readonly tokenFlags: Effect.Effect<{ readonly excluded: ReadonlySet<string>; readonly weth: ReadonlySet<string> }>
  /** Grades picks due at `now`; returns how many. */
  readonly gradeDue: (now: number) => Effect.Effect<number>
  /** The token's last price at `at` (an exit without a price of its own). */
  readonly lastPrice: (token: string, at: number) => Effect.Effect<number | null>
  /** Records an exit; true when it was new or earlier than the one kept. */
  readonly insertExit: (pick: ExitPick, r: RecordRow, last: number | null, mode: Mode, now: number) => Effect.Effect<boolean>
  /** Completes a flag (conviction, pick, ledger, announcement); the new pick's id, or null when one was there. */
  readonly flag: (r: RecordRow, decision: NonNullable<ReturnType<typeof decideFlag>>, mode: Mode, now: number) => Effect.Effect<number | null>
}

const isDex = (r: RecordRow) => r.category === "dex_buy" || r.category === "dex_sell"
const byDbOrder = (a: KeyedTrade, b: KeyedTrade) =>
  a.ts - b.ts || (a.txHash < b.txHash ? -1 : a.txHash > b.txHash ? 1 : 0) || a.logIndex - b.logIndex || (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0)
const keyed = (r: RecordRow): KeyedTrade => ({
  token: r.token, key: recordKey(r), txHash: r.txHash, logIndex: r.logIndex, wallet: r.wallet,
  side: r.category === "dex_buy" ? "buy" : "sell", amount: r.amount, usd: r.usd, price: r.price, ts: r.ts
})

/**
 * Handles `records` in order as of `now` (live: the wall clock; rebuild: each record's time, which also grades picks
 * as records reach their horizon). Returns the ids of the picks flagged and how many picks were graded on the way.
 */
export const ingestMany = (s: IngestSteps, records: ReadonlyArray<RecordRow>, mode: Mode, now: number) =>
  Effect.gen(function* () {
    const flagged: Array<number> = []
    let graded = 0
    if (records.length === 0) return { flagged, graded }
    const f = yield* s.tokenFlags
    const { batch, rules } = s

    // ETH closes: per UTC day the record a sequence of upserts would leave (latest time; the later of equal times).
    const closes = new Map<number, { ts: number; price: number }>()
    for (const r of records) {
      if (!f.weth.has(r.token) || r.price === null || r.price <= 0) continue
      const day = Math.floor(r.ts / DAY_MS)
      const kept = closes.get(day)
      if (kept === undefined || r.ts >= kept.ts) closes.set(day, { ts: r.ts, price: r.price })
    }
    const eligible = (r: RecordRow) => !f.weth.has(r.token) && !f.excluded.has(r.token) && r.category !== "exchange_withdraw"
    const kept = records.filter(eligible)

    // The state the rules read, as stored before this read.
    let lo = Infinity
    let hi = -Infinity
    for (const r of kept) {
      if (r.ts < lo) lo = r.ts
      if (r.ts > hi) hi = r.ts
    }
    const buySet = new Set(kept.filter((r) => r.category === "dex_buy").map((r) => r.token))
    const buyTokens = [...buySet]
    const exitTokens = [...new Set(kept.filter((r) => r.category === "dex_sell" || r.category === "exchange_deposit").map((r) => r.token))]
    let open = yield* batch.openTokens(buyTokens)
    const stored = new Map<string, Array<KeyedTrade>>()
    for (const t of yield* batch.windowTrades(buyTokens, lo - rules.windowMs, hi)) {
      const list = stored.get(t.token)
      if (list === undefined) stored.set(t.token, [t])
      else list.push(t)
    }
    const counted = new Set<string>()
    for (const list of stored.values()) for (const t of list) counted.add(t.key)
    // Whales only (issue 28 part 5): the read's trades of bots, routers, pools, exchanges and bridges join no window.
    const whales = yield* batch.countedWallets([...new Set(kept.filter((r) => isDex(r) && buySet.has(r.token)).map((r) => r.wallet))])
    const scan = yield* batch.exitScan(exitTokens, lo - EXIT_MS, hi)
    const exitPicks = [...scan.picks]
    const firstExit = new Map<string, number>()
    const exitKey = (pickId: number, wallet: string) => `${pickId}:${wallet}`
    for (const x of scan.exits) firstExit.set(exitKey(x.pickId, x.wallet), x.ts)
    let dueFrom = mode === "rebuild" ? yield* batch.firstPendingFlag : null

    // What this read added so far: its DEX trades per token (for windows), its rows and marks not yet written.
    const earlier = new Map<string, Array<KeyedTrade>>()
    let written = 0
    let marked = 0
    /** Writes the read's records (and their price marks) before index `end`. */
    const writeUpTo = (end: number) =>
      Effect.gen(function* () {
        if (end > written) {
          yield* batch.insertRecords(kept.slice(written, end))
          written = end
        }
        if (end > marked) {
          yield* batch.markPending(marksOf(kept.slice(marked, end)), HORIZON_MS)
          marked = end
        }
      })
    const gradeAt = (at: number, end: number) =>
      Effect.gen(function* () {
        yield* writeUpTo(end)
        const n = yield* s.gradeDue(at)
        graded += n
        if (n > 0) open = yield* batch.openTokens(buyTokens)
        if (mode === "rebuild") dueFrom = yield* batch.firstPendingFlag
      })

    let k = 0
    for (const r of records) {
      if (mode === "rebuild" && dueFrom !== null && r.ts >= dueFrom + HORIZON_MS) yield* gradeAt(r.ts, k)
      if (!eligible(r)) continue
      const i = k++
      const at = mode === "live" ? now : r.ts
      if (isDex(r)) {
        const t = keyed(r)
        if (!counted.has(t.key) && whales.has(r.wallet)) {
          counted.add(t.key)
          const list = earlier.get(r.token)
          if (list === undefined) earlier.set(r.token, [t])
          else list.push(t)
        }
      }
      if (r.category === "dex_sell" || r.category === "exchange_deposit") {
        const candidates = exitPicks.filter((p) => p.token === r.token && p.flaggedAt < r.ts && p.flaggedAt >= r.ts - EXIT_MS &&
          p.flaggers.includes(r.wallet) && !((firstExit.get(exitKey(p.id, r.wallet)) ?? Infinity) <= r.ts))
        if (candidates.length === 0) continue
        yield* writeUpTo(i + 1)
        const last = r.price !== null && r.price > 0 ? r.price : yield* s.lastPrice(r.token, r.ts)
        for (const p of candidates) {
          if (yield* s.insertExit(p, r, last, mode, at)) {
            const key = exitKey(p.id, r.wallet)
            firstExit.set(key, Math.min(firstExit.get(key) ?? Infinity, r.ts))
          }
        }
        continue
      }
      if (r.category !== "dex_buy" || open.has(r.token)) continue
      const trades = windowOf(stored.get(r.token), earlier.get(r.token), r.ts - rules.windowMs, r.ts)
      const decision = decideFlag({ wallet: r.wallet, side: "buy", amount: r.amount, usd: r.usd, price: r.price, ts: r.ts }, trades, false, rules)
      if (decision === null) continue
      // Grades due by the flag first, on the rows stored up to this record (the sequence had stored it already).
      yield* gradeAt(r.ts, i + 1)
      const id = yield* s.flag(r, decision, mode, at)
      if (id === null) {
        open = yield* batch.openTokens(buyTokens)
        continue
      }
      flagged.push(id)
      open.add(r.token)
      exitPicks.push({ id, token: r.token, flaggedAt: r.ts, entryPrice: decision.entryPrice, flaggers: decision.buyers.map((b) => b.wallet) })
      if (mode === "rebuild" && (dueFrom === null || r.ts < dueFrom)) dueFrom = r.ts
    }
    yield* writeUpTo(kept.length)
    yield* batch.upsertEthCloses([...closes.values()])
    return { flagged, graded }
  })

/** The token's DEX trades in `(from, to]` in the database's order: the stored ones and the read's earlier ones. */
const windowOf = (stored: ReadonlyArray<KeyedTrade> | undefined, earlier: ReadonlyArray<KeyedTrade> | undefined, from: number, to: number): ReadonlyArray<WindowTrade> => {
  const inWindow = (t: KeyedTrade) => t.ts > from && t.ts <= to
  const a = stored?.filter(inWindow) ?? []
  const b = earlier?.filter(inWindow) ?? []
  return b.length === 0 ? a : a.length === 0 ? b.sort(byDbOrder) : [...a, ...b].sort(byDbOrder)
}

/** One mark per (token, time) of the priced records: their highest and lowest price. */
const marksOf = (rows: ReadonlyArray<RecordRow>): ReadonlyArray<PriceMark> => {
  const by = new Map<string, { token: string; ts: number; high: number; low: number }>()
  for (const r of rows) {
    if (r.price === null || !(r.price > 0)) continue
    const key = `${r.token}@${r.ts}`
    const m = by.get(key)
    if (m === undefined) by.set(key, { token: r.token, ts: r.ts, high: r.price, low: r.price })
    else {
      if (r.price > m.high) m.high = r.price
      if (r.price < m.low) m.low = r.price
    }
  }
  return [...by.values()]
}
