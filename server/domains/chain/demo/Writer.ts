/**
 * Stores the demo history (History.ts) through the batched insert path (`ChainRepo.insertRecords`, source `demo`):
 * the demo wallets are tracked first, then the hours of the window oldest first, about `BATCH` records per
 * statement, the progress row moved after each batch so a restart resumes where the last one stopped. A history
 * already finished is not generated again. Pure generation and storage only: the caller decides when it runs.
 */
import { Clock, Effect } from "effect"
import { ChainRepo } from "../Repo"
import type { Reference } from "../Reference"
import type { WhaleRecord } from "../Types"
import { loadCalendar } from "./Calendar"
import { blockAt, blockTime, makeHistory, type BlockClock } from "./History"
import { DemoHistoryRepo } from "./HistoryRepo"
import { DAY, HOUR, makeMarket, type Market } from "./Market"
import { demoWallets, type DemoWallet } from "./Wallets"

export interface HistorySettings {
  readonly seed: number
  readonly days: number
  readonly clock: BlockClock
  /** The live demo chain's own history ingested by the listener (blocks): the generated history ends before it. */
  readonly listenerBlocks: number
  readonly reference: Reference
  /** Where data/playbook-calendar.json may be. */
  readonly dataDir: string
}

export interface HistoryProgress {
  readonly from: Date
  readonly to: Date
  readonly storedTo: Date
  readonly records: number
  readonly done: boolean
  readonly resumed: boolean
}

/** Records per INSERT (the backfill's batch size is 1,000; bigger batches amortise the roll-up triggers). */
export const BATCH = 4_000

/** The demo world of a seed: market, wallets and the history generator, over the reference data. */
export const demoWorld = (settings: Pick<HistorySettings, "seed" | "reference" | "dataDir" | "clock">) => {
  const labels = [...settings.reference.labels.values()]
  const exchanges = [...new Set(labels.flatMap((l) => (l.category === "exchange" ? [l.exchange] : [])))].sort()
  const routers = [...new Set(labels.flatMap((l) => (l.category === "router" && !l.name.includes("CoW") ? [l.venue] : [])))].sort()
  const calendar = loadCalendar(settings.dataDir)
  const market: Market = makeMarket(settings.seed, settings.reference.tokens.values(), calendar.events)
  const wallets: Array<DemoWallet> = demoWallets(settings.seed, exchanges, routers)
  const history = makeHistory({ seed: settings.seed, market, wallets, clock: settings.clock })
  return { market, wallets, history, calendar } as const
}

/**
 * Generates and stores the history (or the rest of one a previous start began). `onProgress` is called after every
 * batch. Returns the final progress; a history with `days = 0` stores nothing.
 */
export const writeDemoHistory = (settings: HistorySettings, onProgress: (p: HistoryProgress) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const repo = yield* ChainRepo
    const store = yield* DemoHistoryRepo
    let row = yield* store.state
    const resumed = row !== null
    if (row === null && settings.days <= 0) return null
    const world = demoWorld(settings)
    yield* store.trackDemoWallets(world.wallets)
    if (row === null) {
      const now = yield* Clock.currentTimeMillis
      // End where the listener's own history begins (or at the oldest record already stored), on a block boundary.
      const listenerStart = blockTime(settings.clock, blockAt(settings.clock, now) - settings.listenerBlocks + 1) * 1000
      const earliest = yield* store.earliestRecord
      const to = Math.min(listenerStart, earliest?.getTime() ?? listenerStart)
      const from = Math.floor((to - settings.days * DAY) / HOUR) * HOUR
      row = yield* store.begin({ seed: settings.seed, days: settings.days, from: new Date(from), to: new Date(to) })
    }
    const from = row.from_ts.getTime()
    const to = row.to_ts.getTime()
    let storedTo = row.stored_to.getTime()
    let records = row.records
    const progress = (done: boolean): HistoryProgress =>
      ({ from: row!.from_ts, to: row!.to_ts, storedTo: new Date(storedTo), records, done, resumed })
    if (row.finished_at !== null) return progress(true)

    let pending: Array<WhaleRecord> = []
    let pendingTo = storedTo
    const flush = Effect.gen(function* () {
      if (pending.length > 0) records += yield* repo.insertRecords(pending, "demo")
      storedTo = pendingTo
      yield* store.progress(new Date(storedTo), records)
      pending = []
      yield* onProgress(progress(false))
    })
    // Hours are whole: a resumed history restarts at the hour it had stored up to (already stored rows are kept).
    for (let start = Math.floor(storedTo / HOUR) * HOUR; start < to; start += HOUR) {
      const end = Math.min(to, start + HOUR)
      for (const r of world.history.hour(start)) {
        const t = r.ts.getTime()
        if (t >= Math.max(from, storedTo) && t < end) pending.push(r)
      }
      pendingTo = end
      if (pending.length >= BATCH) {
        yield* flush
        yield* Effect.yieldNow()
      }
    }
    yield* flush
    yield* store.finish
    return progress(true)
  })
