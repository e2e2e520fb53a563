/**
 * The picks domain's service: it flags picks and records exits as records arrive (`ingest`, from the picks-grader
 * actor on `chain.tx`), undoes what a reorg took back (`retract`), grades due picks (`gradeDue`, on schedule), and
 * serves the read views. Every write is idempotent on the record and the pick (unique keys, `ON CONFLICT`), so a
 * redelivered message or a second process changes nothing; the rules themselves are the pure functions of Rules.ts.
 */
import { Clock, Duration, Effect, Option, Stream } from "effect"
import { type FlowCategory, isFlowCategory } from "../../../schema/records"
import { type ChainTxMessage, type ChainTxRetraction, STREAMS } from "../../../schema/streams"
import { Bus } from "../../platform/infra/Bus"
import { Chain } from "../chain/Chain"
import { PicksConfig } from "./Config"
import { recordKey, type RecordRow, PicksRepo } from "./Repo"
import { conviction, exitOf, grade, HORIZON_MS, netBuyers } from "./Rules"
import type { Recent, Summary } from "../../../schema/http/picks"
import { type ExitRec, type PickRec, pickRow, summary as summaryView } from "./Views"
import { PicksBatchRepo } from "./BatchRepo"
import { ingestMany, type IngestSteps } from "./Ingest"

const TOKEN_REFRESH_MS = 60_000
/** The most picks `recent` answers. */
export const RECENT_LIMIT = 50
/** Graded picks read per query while streaming the full list. */
export const GRADED_BATCH = 1000

export interface Snapshot {
  readonly picks: ReadonlyArray<PickRec>
  readonly exits: ReadonlyArray<ExitRec>
  readonly exitCounts: ReadonlyMap<number, number>
  readonly demo: boolean
}

/** A token's open (PENDING) pick, as other domains see it (the watchlist shows it beside the token). */
export interface OpenPick {
  readonly id: number
  readonly token: string
  readonly symbol: string
  /** ISO 8601 UTC. */
  readonly flagged_at: string
  readonly entry_price: number | null
  readonly conviction: number
  /** How many addresses flagged it. */
  readonly whales: number
  /** The flagging addresses (lower-case, full: the caller decides how to show them). */
  readonly flaggers: ReadonlyArray<string>
}

export class Picks extends Effect.Service<Picks>()("app/picks/Picks", {
  effect: Effect.gen(function* () {
    const repo = yield* PicksRepo
    const batch = yield* PicksBatchRepo
    const chain = yield* Chain
    const settings = yield* PicksConfig
    const bus = yield* Bus
    const rules = settings.rules

    // Token flags, refreshed once a minute: the rule excludes stablecoins, ETH derivatives and blacklisted tokens.
    let flags: { at: number; excluded: Set<string>; weth: Set<string> } | null = null
    const tokenFlags = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (flags !== null && now - flags.at < TOKEN_REFRESH_MS) return flags
      const rows = yield* chain.allTokenFlags
      flags = {
        at: now,
        excluded: new Set(rows.filter((t) => t.stable || t.eth_derivative || t.blacklisted || t.symbol === "UNKNOWN").map((t) => t.address)),
        weth: new Set(rows.filter((t) => t.eth_derivative && (t.symbol === "WETH" || t.symbol === "ETH")).map((t) => t.address))
      }
      return flags
    })

    const publishFlag = (p: { id: number; token: string; symbol: string; flagged_at: Date; entry_price: number | null; whales: number; conviction: number }) =>
      bus.publish(STREAMS.domainEvents, {
        messageId: `pick:${p.id}`, _tag: "PickFlagged", pick_id: p.id, token: p.token, symbol: p.symbol,
        flagged_at: p.flagged_at.toISOString(), entry_price: p.entry_price, whales: p.whales, conviction: p.conviction
      })

    /** Publishes `PickFlagged` for picks not yet announced (after a crash between commit and publish). */
    const publishPending = Effect.gen(function* () {
      const rows = yield* repo.unpublished
      for (const p of rows) yield* publishFlag(p)
      yield* repo.markPublished(rows.map((r) => r.id))
      return rows.length
    })

    /** Grades every pick due at `now` (flag + 7 × 24 h ≤ now); returns how many were graded. */
    const gradeDue = (now: number) =>
      Effect.gen(function* () {
        let total = 0
        while (true) {
          const due = yield* repo.duePicks(now, HORIZON_MS, 200)
          if (due.length === 0) return total
          for (const p of due) {
            const flaggedAt = p.flagged_at.getTime()
            const points = yield* repo.pricePoints(p.token, flaggedAt, flaggedAt + HORIZON_MS)
            const exits = yield* repo.exitTimes(p.id)
            const g = grade({ flaggedAt, entryPrice: p.entry_price }, points, exits, now, rules)
            if (g === null) continue
            yield* repo.setGrade(p.id, {
              status: g.status, reason: g.status === "UNPRICED" ? g.reason : null,
              closePrice: g.status === "GRADED" ? g.closePrice : null, closeReturn: g.status === "GRADED" ? g.closeReturn : null,
              peak: g.marks.peak, trough: g.marks.trough,
              peakReturn: g.status === "GRADED" ? g.peakReturn : (g.marks.peak !== null && p.entry_price ? g.marks.peak / p.entry_price - 1 : null),
              maxAdverse: g.status === "GRADED" ? g.maxAdverse : null,
              dayCloses: g.marks.dayCloses, exitedBeforeClose: g.exitedBeforeClose, gradedAt: flaggedAt + HORIZON_MS
            }, yield* Clock.currentTimeMillis)
            total++
          }
          if (due.length < 200) return total
        }
      })

    const lock = yield* Effect.makeSemaphore(1)
    const steps: IngestSteps = {
      batch, rules, tokenFlags, gradeDue, lastPrice: repo.lastPrice,
      insertExit: (p, r, last, mode, now) =>
        Effect.gen(function* () {
          const exit = exitOf({ flaggedAt: p.flaggedAt, entryPrice: p.entryPrice, flaggers: p.flaggers },
            { wallet: r.wallet, category: r.category, ts: r.ts, price: r.price }, last)
          if (exit === null) return false
          return yield* repo.insertExit(p.id, exit, recordKey(r), mode === "live" ? yield* Clock.currentTimeMillis : now)
        }),
      flag: (r, decision, mode, now) =>
        Effect.gen(function* () {
          const history = yield* repo.gradedHistory(decision.buyers.map((b) => b.wallet), r.ts, HORIZON_MS)
          const c = conviction(decision.buyers, history, r.ts, rules.minWhales)
          const id = yield* repo.insertPick({
            token: r.token, symbol: r.symbol, flaggedAt: r.ts, flagRecord: recordKey(r), entryPrice: decision.entryPrice,
            flaggers: decision.buyers.map((b) => b.wallet), flagUsd: c.usd, conviction: c.score, demo: r.demo, source: mode,
            inputs: {
              rule: { min_whales: rules.minWhales, window_hours: rules.windowMs / 3_600_000 },
              buyers: decision.buyers.map((b) => ({ wallet: b.wallet, net_amount: b.netAmount, net_usd: Math.round(b.netUsd * 100) / 100 })),
              conviction: c
            }
          }, mode === "live" ? yield* Clock.currentTimeMillis : now)
          if (id === null) return null
          if (mode === "live") yield* publishPending
          else yield* repo.markPublished([id])
          // A live flag is news for the operator; the hundreds a history replay flags are summed up by the replay's line.
          const line = `pick ${id} flagged: ${r.symbol} by ${decision.buyers.length} whales, conviction ${c.score}`
          yield* mode === "live" ? Effect.logInfo(line) : Effect.logDebug(line)
          return id
        })
    }
    /**
     * Records in stream order, as of the wall clock (live) or of each record's time (a rebuild), with the result of
     * handling them one at a time (Ingest.ts). One at a time with the scheduled grading: the lock.
     */
    const ingestRecords = (records: ReadonlyArray<RecordRow>, mode: "live" | "rebuild") =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => ingestMany(steps, records, mode, now))

    /** The record as picks read it; exchange housekeeping is no flow and never reaches picks (the caller skips it). */
    const fromMessage = (m: ChainTxMessage & { category: FlowCategory }): RecordRow => ({
      txHash: m.tx_hash, logIndex: m.log_index, wallet: m.wallet.toLowerCase(), token: m.token.toLowerCase(), symbol: m.symbol,
      category: m.category, amount: Number(m.amount), usd: m.usd, price: m.price_usd, ts: Date.parse(m.ts), demo: m.source === "demo"
    })

    /** A reorg took a record back: forget it, drop exits it made, void picks that no longer meet the rule. */
    const retract = (m: ChainTxRetraction) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const wallet = m.wallet.toLowerCase()
        const token = m.token.toLowerCase()
        const gone = yield* repo.deleteRecord(m.tx_hash, m.log_index, wallet, token)
        const key = recordKey({ txHash: m.tx_hash, logIndex: m.log_index, wallet })
        yield* repo.deleteExitsOf(key, now)
        if (gone === null) return
        const ts = gone.ts.getTime()
        for (const p of yield* repo.picksWindowing(token, ts, rules.windowMs)) {
          const at = p.flagged_at.getTime()
          const trades = yield* repo.windowTrades(token, at - rules.windowMs, at)
          const stillFlagged = p.flag_record !== key && netBuyers(trades, at, rules.windowMs).length >= rules.minWhales
          if (!stillFlagged) {
            yield* repo.voidPick(p.id, `reorg retracted ${key}`, now)
            yield* Effect.logWarning(`pick ${p.id} voided: a reorg retracted ${key}`)
          }
        }
      })

    /** Recomputes every pick from the stored records, deterministically (the ledger is appended to, never rewritten). */
    const rebuild = (onProgress: (records: number) => void = () => {}, reason = "npm run picks -- rebuild") =>
      Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        yield* repo.resetDerived
        flags = null
        yield* repo.appendRebuildMark({ reason, started_at: new Date(started).toISOString() }, started)
        let after = { ts: 0, id: 0 }
        let records = 0
        let flagged = 0
        let graded = 0
        while (true) {
          const rows = yield* chain.recordsAfter(after, 2000)
          if (rows.length === 0) break
          const result = yield* ingestMany(steps, rows.flatMap((row): Array<RecordRow> => isFlowCategory(row.category) ? [{
            txHash: row.tx_hash, logIndex: row.log_index, wallet: row.wallet, token: row.token, symbol: row.symbol, category: row.category,
            amount: row.amount, usd: row.usd, price: row.price_usd, ts: row.ts.getTime(), demo: row.source === "demo"
          }] : []), "rebuild", 0)
          flagged += result.flagged.length
          graded += result.graded
          records += rows.length
          const last = rows[rows.length - 1]!
          after = { ts: last.ts.getTime(), id: last.id }
          onProgress(records)
        }
        graded += yield* gradeDue(yield* Clock.currentTimeMillis)
        return { records, flagged, graded }
      })

    // The read snapshot, reused for PICKS_CACHE_SECONDS (one load at a time).
    const load = Effect.gen(function* () {
      const [picks, exits] = yield* Effect.all([repo.allPicks, repo.allExits], { concurrency: 2 })
      const exitCounts = new Map<number, number>()
      for (const e of exits) exitCounts.set(e.pickId, (exitCounts.get(e.pickId) ?? 0) + 1)
      return { picks, exits, exitCounts, demo: picks.some((p) => p.demo === true) } satisfies Snapshot
    })
    const [cachedSnapshot, invalidate] = yield* Effect.cachedInvalidateWithTTL(load, Duration.millis(settings.cacheMs))
    const snapshot = settings.cacheMs > 0 ? cachedSnapshot : load

    /**
     * The demo history's picks: its records are stored, never published, so once it is stored they are replayed
     * through the rebuild path (with the live records stored so far: the same rules, in time order), once per
     * database. Returns the figures, or null when it was done before.
     */
    const replayHistory = Effect.fn("Picks.replayHistory")(function* (onProgress: (records: number) => void = () => {}) {
      if (yield* repo.historyReplayed) return null
      replayedRecords = 0
      const figures = yield* rebuild((n) => { replayedRecords = n; onProgress(n) }, "demo history stored")
      yield* repo.markHistoryReplayed(figures)
      return figures
    })
    /** Records the replay of this process went through so far (null: none running here). */
    let replayedRecords: number | null = null
    /**
     * The demo history's replay as the console shows it: done (once per database), and how many records the replay
     * running in this process has gone through (null when it runs in another process, or not yet).
     */
    const historyReplay = repo.historyReplayed.pipe(Effect.map((done) => ({ done, records: done ? null : replayedRecords })))

    return {
      settings,
      replayHistory,
      historyReplay,
      /** One record; the id of the pick it flagged, if any. */
      ingest: Effect.fn("Picks.ingest")(function* (m: ChainTxMessage) {
        if (!isFlowCategory(m.category)) return null
        const result = yield* lock.withPermits(1)(ingestRecords([fromMessage({ ...m, category: m.category })], "live"))
        return result.flagged[0] ?? null
      }),
      /** A read's records in stream order (as many `ingest`s, in a few statements); the ids of the picks flagged. */
      ingestMany: Effect.fn("Picks.ingestMany")(function* (ms: ReadonlyArray<ChainTxMessage>) {
        const flows = ms.flatMap((m) => (isFlowCategory(m.category) ? [fromMessage({ ...m, category: m.category })] : []))
        return (yield* lock.withPermits(1)(ingestRecords(flows, "live"))).flagged
      }),
      retract: Effect.fn("Picks.retract")(function* (m: ChainTxRetraction) {
        return yield* lock.withPermits(1)(retract(m))
      }),
      gradeDue: Effect.fn("Picks.gradeDue")(function* () {
        return yield* lock.withPermits(1)(Effect.flatMap(Clock.currentTimeMillis, gradeDue))
      }),
      publishPending,
      rebuild,
      snapshot,
      invalidate,
      /** The backtest's inputs: graded picks flagged in `[from, to)` (at most `limit`) and the ETH closes around them. */
      backtestInputs: (from: number, to: number, limit: number) =>
        Effect.all({
          picks: repo.backtestPicks(from, to, limit).pipe(Effect.map((rows) => rows.map((r) => ({
            id: r.id, symbol: r.symbol, flaggedAt: r.flagged_at.getTime(), whales: r.whales, conviction: r.conviction, entryPrice: r.entry_price,
            dayCloses: r.day_closes ?? [], firstExit: r.exit_ts !== null && r.exit_price !== null ? { ts: r.exit_ts.getTime(), price: r.exit_price } : null
          })))),
          eth: repo.ethCloses(from, to + HORIZON_MS),
          demo: repo.anyDemo
        }),
      /** The headline counts and rates (`GET /api/picks2/summary`, MCP `picks_summary`), from the snapshot. */
      summary: Effect.fn("Picks.summary")(function* () {
        const snap = yield* snapshot
        return summaryView(snap.picks, snap.exits, { minWhales: rules.minWhales, windowHours: rules.windowMs / 3_600_000, minN: settings.minN }, snap.demo) satisfies Summary
      }),
      /**
       * The `limit` (≤ RECENT_LIMIT) most recently flagged picks, newest first, PENDING included. `live` callers (pro
       * tier and above) see PENDING picks at once; others only PICKS_FREE_DELAY_HOURS after the flag, and learn how
       * many were withheld.
       */
      recent: Effect.fn("Picks.recent")(function* (live: boolean, limit: number = RECENT_LIMIT) {
        const snap = yield* snapshot
        const now = yield* Clock.currentTimeMillis
        const exitsOf = (p: PickRec) => snap.exitCounts.get(p.id) ?? 0
        const recent = snap.picks.filter((p) => p.status !== "VOID").slice(-Math.min(limit, RECENT_LIMIT)).reverse()
        const shown = recent.filter((p) => live || p.status !== "PENDING" || now - p.flaggedAt >= settings.freeDelayMs)
        return {
          picks: shown.map((p) => pickRow(p, exitsOf(p))), delay_hours: live ? 0 : settings.freeDelayMs / 3_600_000, withheld: recent.length - shown.length
        } satisfies Recent
      }),
      /**
       * Every graded pick as the JSON document `{"picks":[row, …]}` in chunks, one batch of GRADED_BATCH rows per
       * query (keyset on flagged_at, id): memory stays one batch whatever the count. Read live, not from the snapshot;
       * a pick graded while the stream runs appears if its place in the order is still ahead.
       */
      gradedJson: (batch: number = GRADED_BATCH): Stream.Stream<string> => {
        type Cursor = { ts: number; id: number } | null
        const batches = Stream.unfoldEffect({ ts: 0, id: 0 } as Cursor, (cursor) =>
          cursor === null
            ? Effect.succeed(Option.none())
            : repo.gradedAfter(cursor, batch).pipe(Effect.map((rows) => {
              const last = rows[rows.length - 1]
              if (last === undefined) return Option.none()
              const text = rows.map((r) => JSON.stringify(pickRow(r.pick, r.exits))).join(",")
              const next: Cursor = rows.length < batch ? null : { ts: last.pick.flaggedAt, id: last.pick.id }
              return Option.some([text, next] as const)
            })))
        const rows = batches.pipe(Stream.zipWithIndex, Stream.map(([text, i]) => (i === 0 ? text : `,${text}`)))
        return Stream.concat(Stream.concat(Stream.succeed('{"picks":['), rows), Stream.succeed("]}"))
      },
      /**
       * The open (PENDING) pick of each of `tokens` (addresses, any case), keyed by lower-case address; tokens without
       * one are absent. Read live (not from the snapshot): a pick flagged a second ago is there — for `live` callers
       * (pro tier and above); others see an open pick only PICKS_FREE_DELAY_HOURS after its flag, as on `/recent`.
       */
      openPicksFor: Effect.fn("Picks.openPicksFor")(function* (tokens: ReadonlyArray<string>, live: boolean) {
        const wanted = [...new Set(tokens.map((t) => t.trim().toLowerCase()).filter((t) => t.length > 0))]
        const now = yield* Clock.currentTimeMillis
        const rows = (yield* repo.openPicks(wanted)).filter((r) => live || now - r.flagged_at.getTime() >= settings.freeDelayMs)
        return new Map(rows.map((r): [string, OpenPick] => [r.token, {
          id: Number(r.id), token: r.token, symbol: r.symbol, flagged_at: r.flagged_at.toISOString(), entry_price: r.entry_price,
          conviction: r.conviction, whales: r.whales, flaggers: r.flaggers
        }])) as ReadonlyMap<string, OpenPick>
      }),
      ledgerSummary: Effect.all({ head: repo.ledgerHead, days: repo.ledgerDays }),
      ledgerEntries: repo.ledgerEntries,
      trackedWallets: chain.activeTrackedWallets
    } as const
  }),
  dependencies: [PicksRepo.Default, PicksBatchRepo.Default, PicksConfig.Default]
}) {}
