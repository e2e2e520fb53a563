/**
 * Whales found on chain (issue 28 part 4). The listener's block tap only queues the block (`enqueue`: one offer to a
 * bounded in-memory queue, the oldest dropped when discovery falls behind); the `whale-discovery` actor takes the
 * blocks off the listener's path (`next`, `handle`) and runs the daily upkeep (`maintain`).
 *
 * Per block: prices from the block's swaps (Candidates.ts); each address's largest move of at least WHALE_MIN_USD;
 * addresses the identity engine calls a bot, router, pool, bridge or exchange (NON_HUMAN_CLASSES), contracts that
 * logged, and wallets already tracked from another source are not candidates; a new candidate (or one that left, or
 * one measured too small more than WHALE_REFRESH_HOURS ago) is measured — ETH balance and `balanceOf` of the majors
 * and stablecoins, one JSON-RPC batch — and then: under WHALE_MIN_HOLDINGS_USD it is `below`; with
 * WHALE_DISCOVERY=review it is `pending` until an operator approves it; in `auto` mode it joins the tracked set
 * (source 'discovered', cohort from its size) while fewer than WHALE_MAX_TRACKED discovered wallets are tracked, and
 * waits as `pending` otherwise. Joined wallets seen in a block are marked active (the block's time).
 *
 * Upkeep: joined and pending candidates are measured again after WHALE_REFRESH_HOURS (cohorts follow); joined ones
 * idle for WHALE_IDLE_DAYS leave the tracked set (`left`, the row and the wallet's records kept); in auto mode,
 * pending candidates large enough fill the room left. Only a process that has seen blocks from a source that can
 * read balances measures (the listener's); the rest of the upkeep is idempotent.
 */
import { Effect, Queue } from "effect"
import { NON_HUMAN_CLASSES } from "../../../schema/identity"
import type { TappedBlock } from "../chain/BlockTaps"
import { ChainWallets } from "../chain/ChainWallets"
import { loadReference, tokenLookup } from "../chain/Reference"
import type { ChainSourceShape } from "../chain/Source"
import { participants, readActivity } from "./Activity"
import { bigMoves, DiscoveryPrices, reasonOf, shortUsd, type BigMove } from "./Candidates"
import { IdentityConfig } from "./Config"
import { DiscoveryRepo, type CandidateRow, type CandidateStatus, type Cohort, type Holding } from "./DiscoveryRepo"
import { CandidateNotFound, CandidateRefused } from "./Errors"
import { WalletIdentity } from "./WalletIdentity"

/** Candidates measured per block at most (the rest wait for their next move). */
const MEASURES_PER_BLOCK = 50
const MAJORS = new Set(["WBTC", "cbBTC"])
const HOUR = 3_600_000

export interface Measured { readonly usd: number; readonly holdings: ReadonlyArray<Holding> }

export class WhaleDiscovery extends Effect.Service<WhaleDiscovery>()("app/identity/WhaleDiscovery", {
  dependencies: [DiscoveryRepo.Default, IdentityConfig.Default, ChainWallets.Default],
  effect: Effect.gen(function* () {
    const settings = yield* IdentityConfig
    const repo = yield* DiscoveryRepo
    const wallets = yield* ChainWallets
    const identity = yield* WalletIdentity
    const reference = loadReference()
    const tokens = tokenLookup(reference.tokens)
    const prices = new DiscoveryPrices(tokens)
    const measured = [...reference.tokens.values()].filter((t) => !t.blacklisted && (t.stable || t.eth_derivative || MAJORS.has(t.symbol)))
    const queue = yield* Queue.sliding<TappedBlock>(settings.queueBlocks)
    let source: Pick<ChainSourceShape, "getBalances"> | null = null

    const cohortOf = (usd: number): Cohort => (usd >= settings.megaUsd ? "mega" : usd >= settings.largeUsd ? "large" : "mid")
    const labelOf = (a: string) => `Whale ${a.slice(0, 6)}…${a.slice(-4)}`

    /** Holdings of each address in USD (the majors and stablecoins plus ETH), or null where the reads failed. */
    const measure = (addresses: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const read = source?.getBalances
        if (read === undefined || addresses.length === 0) return new Map<string, Measured>()
        const balances = yield* read(addresses, measured.map((t) => t.address)).pipe(
          Effect.catchAll((e) => Effect.logWarning(`whale discovery: balances not read (${e.message})`).pipe(Effect.as([]))))
        const out = new Map<string, Measured>()
        balances.forEach((b, i) => {
          if (b.eth === null && b.tokens.every((t) => t === null)) return
          const holdings: Array<Holding> = []
          const eth = prices.ethUsd()
          if (b.eth !== null && b.eth > 0n) holdings.push({ symbol: "ETH", units: Number(b.eth) / 1e18, usd: eth === null ? null : (Number(b.eth) / 1e18) * eth })
          b.tokens.forEach((amount, j) => {
            const t = measured[j]!
            if (amount === null || amount === 0n) return
            const units = Number(amount) / 10 ** t.decimals
            const price = prices.price(t.address)
            holdings.push({ symbol: t.symbol, units, usd: price === null ? null : units * price })
          })
          holdings.sort((x, y) => (y.usd ?? 0) - (x.usd ?? 0))
          out.set(addresses[i]!, { usd: holdings.reduce((s, h) => s + (h.usd ?? 0), 0), holdings })
        })
        return out
      })

    const join = (row: CandidateRow | Parameters<typeof repo.upsert>[0], operator: string | null) =>
      Effect.gen(function* () {
        const cohort = cohortOf(row.holdings_usd ?? 0)
        const ok = yield* wallets.trackDiscovered(row.address, labelOf(row.address), cohort)
        if (!ok) return false
        yield* repo.upsert({ ...row, status: "joined", cohort, note: null, decided_by: operator })
        return true
      })

    const room = Effect.map(wallets.discoveredCount, (n) => settings.maxTracked - n)

    /** One block, off the listener's path. */
    const handle = Effect.fn("WhaleDiscovery.handle")(function* (tapped: TappedBlock) {
      const { block, logs } = tapped
      if (tapped.source.getBalances !== undefined) source = tapped.source
      const activity = readActivity(block, logs)
      prices.learn(activity)
      const at = new Date(block.timestamp * 1000)
      yield* repo.touch([...participants(activity)], at, block.number)
      const moves = bigMoves(activity, prices, settings.minUsd)
      const result = { moves: [...moves.values()], candidates: [] as Array<string>, joined: [] as Array<string> }
      if (moves.size === 0) return result
      const addresses = [...moves.keys()]
      const classes = yield* identity.classesOf(addresses)
      const tracked = new Set((yield* wallets.tracked).map((w) => w.address))
      const existing = new Map((yield* repo.byAddress(addresses)).map((r) => [r.address, r]))
      const fresh: Array<BigMove> = []
      for (const m of moves.values()) {
        const cls = classes.get(m.address)
        if ((cls !== undefined && NON_HUMAN_CLASSES.has(cls)) || activity.emitters.has(m.address)) continue
        const known = existing.get(m.address)
        if (known === undefined ? tracked.has(m.address) : known.status === "joined" || known.status === "rejected") continue
        if (known?.status === "pending" || (known?.status === "below" && known.measured_at !== null && at.getTime() - known.measured_at.getTime() < settings.refreshHours * HOUR)) {
          if (m.usd > known.move_usd) yield* repo.upsert({ ...known, ...moveColumns(m), reason: reasonOf(m, known.holdings_usd), last_active_at: at, last_block: block.number })
          continue
        }
        fresh.push(m)
      }
      const sizes = yield* measure(fresh.slice(0, MEASURES_PER_BLOCK).map((m) => m.address))
      let free = settings.mode === "auto" ? yield* room : 0
      for (const m of fresh.slice(0, MEASURES_PER_BLOCK)) {
        const size = sizes.get(m.address)
        if (size === undefined) continue
        const large = size.usd >= settings.minHoldingsUsd
        const status: CandidateStatus = !large ? "below" : "pending"
        const row = {
          address: m.address, status, ...moveColumns(m), holdings_usd: size.usd, holdings: size.holdings, cohort: cohortOf(size.usd),
          reason: reasonOf(m, size.usd), measured_at: at, last_active_at: at, last_block: block.number,
          note: !large ? `holds less than ${shortUsd(settings.minHoldingsUsd)} (WHALE_MIN_HOLDINGS_USD)` :
            settings.mode === "review" ? "waits for an operator's approval" : null
        }
        result.candidates.push(m.address)
        if (large && settings.mode === "auto" && free > 0 && (yield* join(row, null))) {
          free--
          result.joined.push(m.address)
          continue
        }
        yield* repo.upsert(large && settings.mode === "auto" && row.note === null ? { ...row, note: `the tracked set is full (WHALE_MAX_TRACKED=${settings.maxTracked})` } : row)
      }
      if (result.joined.length > 0) yield* Effect.logInfo(`whale discovery: joined ${result.joined.join(", ")} in block ${block.number}`)
      return result
    })

    const moveColumns = (m: BigMove) => ({ move_verb: m.verb, move_usd: m.usd, move_symbol: m.symbol, move_block: m.block, move_tx: m.tx })

    /** The upkeep (see the header), at `now` (ms). */
    const maintain = Effect.fn("WhaleDiscovery.maintain")(function* (now: number) {
      const left: Array<string> = []
      for (const r of yield* repo.idleSince(new Date(now - settings.idleDays * 24 * HOUR))) {
        yield* wallets.untrackDiscovered(r.address)
        yield* repo.upsert({ ...r, status: "left", note: `no activity since ${r.last_active_at.toISOString().slice(0, 10)} (WHALE_IDLE_DAYS=${settings.idleDays})` })
        left.push(r.address)
      }
      const remeasured: Array<string> = []
      if (source !== null) {
        const due = yield* repo.dueForMeasure(new Date(now - settings.refreshHours * HOUR), 200)
        const sizes = yield* measure(due.map((r) => r.address))
        for (const r of due) {
          const size = sizes.get(r.address)
          if (size === undefined) continue
          const cohort = cohortOf(size.usd)
          yield* repo.upsert({ ...r, holdings_usd: size.usd, holdings: size.holdings, cohort, measured_at: new Date(now),
            reason: reasonOf({ verb: r.move_verb as BigMove["verb"], usd: r.move_usd, symbol: r.move_symbol, block: r.move_block }, size.usd) })
          if (r.status === "joined") yield* wallets.setDiscoveredCohort(r.address, cohort)
          remeasured.push(r.address)
        }
      }
      const joined: Array<string> = []
      if (settings.mode === "auto") {
        const free = yield* room
        if (free > 0) for (const r of yield* repo.waitingToJoin(settings.minHoldingsUsd, free)) if (yield* join(r, null)) joined.push(r.address)
      }
      return { left, remeasured, joined }
    })

    const row = (address: string) =>
      Effect.flatMap(repo.byAddress([address.toLowerCase()]), (rows) =>
        rows[0] === undefined ? Effect.fail(new CandidateNotFound({ address: address.toLowerCase() })) : Effect.succeed(rows[0]))

    return {
      settings,
      /** The listener's tap: queue the block (never waits; the oldest block is dropped when the queue is full). */
      enqueue: (tapped: TappedBlock) =>
        Effect.sync(() => {
          if (settings.mode !== "off" && tapped.source.getBalances !== undefined) Queue.unsafeOffer(queue, tapped)
        }),
      /** The next queued block, or none within `waitMs`. */
      next: (waitMs: number) => Queue.take(queue).pipe(Effect.timeoutOption(waitMs)),
      pending: Queue.size(queue),
      handle,
      maintain,
      /** The queue as operators see it: pending first, largest move first. */
      candidates: (status: CandidateStatus | null = null, limit = 200) => repo.list(status, limit),

      /** The address's candidate row (its measured size and when), or null when discovery never met it. */
      candidate: (address: string) => Effect.map(repo.byAddress([address.toLowerCase()]), (rows) => rows[0] ?? null),
      /** An operator's yes: the candidate joins the tracked set (whatever the mode), room permitting. */
      approve: Effect.fn("WhaleDiscovery.approve")(function* (address: string, operator: string | null) {
        const r = yield* row(address)
        if (r.status === "joined") return r
        if (r.status === "rejected") return yield* Effect.fail(new CandidateRefused({ message: `${r.address} was rejected; it cannot be approved` }))
        if ((yield* room) <= 0) return yield* Effect.fail(new CandidateRefused({ message: `the tracked set is full (WHALE_MAX_TRACKED=${settings.maxTracked})` }))
        if (!(yield* join(r, operator))) return yield* Effect.fail(new CandidateRefused({ message: `${r.address} is tracked from another source` }))
        return yield* row(address)
      }),
      /** An operator's no, with a reason: never a candidate again (and out of the tracked set when it had joined). */
      reject: Effect.fn("WhaleDiscovery.reject")(function* (address: string, operator: string | null, reason: string) {
        const r = yield* row(address)
        if (reason.trim() === "") return yield* Effect.fail(new CandidateRefused({ message: "a rejection needs a reason" }))
        if (r.status === "joined") yield* wallets.untrackDiscovered(r.address)
        yield* repo.upsert({ ...r, status: "rejected", note: reason.trim(), decided_by: operator })
        return yield* row(address)
      })
    } as const
  })
}) {}

export type { CandidateRow, CandidateStatus } from "./DiscoveryRepo"
