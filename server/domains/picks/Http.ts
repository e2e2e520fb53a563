/**
 * Picks analytics routes (spec §4.10) and the ledger. Thin: parse → the service's snapshot → a pure view.
 * Tiers: everything graded is public (anyone, no account); `recent` shows PENDING picks younger than
 * PICKS_FREE_DELAY_HOURS to pro tier and above only (others see how many were withheld, and see them after the delay).
 * Contracts: schema/http/picks.ts.
 */
import { Effect } from "effect"
import { PicksEndpoints as E } from "../../../schema/http/picks"
import { tierAtLeast } from "../../../schema/tiers"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { AuthGuards } from "../accounts/Guards"
import { PickNotFound, TokenHasNoPicks } from "./Errors"
import { Picks } from "./Picks"
import { truncateAddress } from "./Views"
import * as V from "./Views"

const LEDGER_VERIFY = "Fetch every entry from /api/picks2/ledger/entries (after_seq=0, then next_after_seq). For each entry check: " +
  "seq is the previous seq + 1; prev_hash equals the previous entry's hash (64 zeros for seq 1); hash = sha256_hex(prev_hash + '\\n' + payload); " +
  "the payload (canonical JSON, keys sorted) names the same seq, at, kind and pick_id; at never decreases. Compare each day's root with a copy " +
  "you kept: a deleted, edited or back-dated pick changes every later hash, so an old root would no longer match."

export const PicksRoutes = Effect.gen(function* () {
  const picks = yield* Picks
  const guards = yield* AuthGuards
  const s = picks.settings
  const view = { minWhales: s.rules.minWhales, windowHours: s.rules.windowMs / 3_600_000, minN: s.minN }
  const row = (snap: { exitCounts: ReadonlyMap<number, number> }) => (p: V.PickRec) => V.pickRow(p, snap.exitCounts.get(p.id) ?? 0)

  return [
    route(E.summary, { guard: Guard.anon, handler: () => picks.summary() }),
    route(E.distributions, { guard: Guard.anon, handler: () => picks.snapshot.pipe(Effect.map((snap) => V.distributions(snap.picks, view))) }),
    route(E.bands, { guard: Guard.anon, handler: () => picks.snapshot.pipe(Effect.map((snap) => V.bands(snap.picks, view))) }),
    route(E.tokens, { guard: Guard.anon, handler: ({ query }) => picks.snapshot.pipe(Effect.map((snap) => V.tokens(snap.picks, query.limit, s.minN))) }),
    route(E.token, {
      guard: Guard.anon,
      handler: ({ params }) => Effect.gen(function* () {
        const snap = yield* picks.snapshot
        const mine = snap.picks.filter((p) => p.status !== "VOID" && p.symbol.toUpperCase() === params.symbol.toUpperCase())
        if (mine.length === 0) return yield* Effect.fail(new TokenHasNoPicks({ symbol: params.symbol }))
        return { symbol: mine[0]!.symbol, picks: [...mine].reverse().map(row(snap)) }
      })
    }),
    route(E.picks, {
      guard: Guard.anon,
      // Streamed (chunked), a batch of rows per query: no cap, and no body held whole in memory.
      handler: () => Effect.succeed(Reply.jsonStream(picks.gradedJson()))
    }),
    route(E.recent, { guard: guards.optionalUser, handler: ({ auth }) => picks.recent(auth !== null && tierAtLeast(auth.tier, "pro")) }),
    route(E.behaviour, { guard: Guard.anon, handler: () => picks.snapshot.pipe(Effect.map((snap) => V.behaviour(snap.picks, snap.exits, s.minN))) }),
    route(E.wallets, {
      guard: Guard.anon,
      handler: ({ query }) => Effect.gen(function* () {
        const snap = yield* picks.snapshot
        return V.wallets(snap.picks, snap.exits, yield* picks.trackedWallets, query.order, query.min_picks)
      })
    }),
    route(E.exitTiming, {
      guard: Guard.anon,
      handler: ({ params }) => Effect.gen(function* () {
        const snap = yield* picks.snapshot
        const p = snap.picks.find((x) => x.id === params.pick_id && x.status !== "VOID")
        if (p === undefined) return yield* Effect.fail(new PickNotFound({ id: params.pick_id }))
        const exits = snap.exits.filter((e) => e.pickId === p.id).sort((a, b) => a.ts - b.ts)
        return {
          pick: row(snap)(p),
          exits: exits.map((e) => ({ wallet: truncateAddress(e.wallet), at: new Date(e.ts).toISOString(), day_offset: e.dayOffset, hours: e.hours, move: e.move, route: e.route }))
        }
      })
    }),
    route(E.topRunners, {
      guard: Guard.anon,
      handler: ({ query }) => picks.snapshot.pipe(Effect.map((snap) => ({ picks: V.topRunners(snap.picks, query.limit).map(row(snap)) })))
    }),
    route(E.exitTimingIndex, {
      guard: Guard.anon,
      handler: ({ query }) => picks.snapshot.pipe(Effect.map((snap) => ({ picks: V.exitTimingIndex(snap.picks, snap.exitCounts, query.min_exits).map(row(snap)) })))
    }),
    route(E.ledger, {
      guard: Guard.anon,
      handler: () => picks.ledgerSummary.pipe(Effect.map(({ head, days }) => ({
        head, days, algorithm: "sha256(prev_hash + \"\\n\" + payload), payload = canonical JSON {seq, at, kind, pick_id, data}", verify: LEDGER_VERIFY
      })))
    }),
    route(E.ledgerEntries, {
      guard: Guard.anon,
      handler: ({ query }) => picks.ledgerEntries(query.after_seq, query.limit).pipe(Effect.map((entries) => ({
        entries, next_after_seq: entries.length === query.limit ? entries[entries.length - 1]!.seq : null
      })))
    })
  ]
})
