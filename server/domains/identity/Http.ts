/**
 * The identity domain's routes: the admin console's corrections and whale discovery's queue (contracts:
 * schema/http/identity.ts). Administrators only — 401 anonymous, 403 for everyone else. Corrections go through the
 * same `WalletIdentity.correct` as the CLI (recorded with the administrator's e-mail as the operator).
 */
import { Effect } from "effect"
import { IdentityEndpoints as E, type Candidate, type IdentitySummary, type StoredCorrection as WireCorrection } from "../../../schema/http/identity"
import { route } from "../../platform/http/Route"
import { AuthGuards } from "../accounts/Guards"
import { WhaleDiscovery, type CandidateRow } from "./Discovery"
import type { StoredCorrection } from "./Repo"
import type { Identity } from "./Types"
import { WalletIdentity } from "./WalletIdentity"

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

const correctionView = (c: StoredCorrection): WireCorrection => ({
  id: c.id, address: c.address, action: c.action, field: c.field, value: c.value, exchange: c.exchange, reason: c.reason,
  operator: c.operator, created_at: iso(c.created_at)!
})

const identityView = (i: Identity): IdentitySummary => ({
  address: i.address, kind: i.kind, class: i.class, class_source: i.classSource, label: i.label, label_source: i.labelSource,
  exchange: i.exchange, confidence: i.confidence, reasons: [...i.reasons]
})

export const candidateView = (r: CandidateRow): Candidate => ({
  address: r.address, status: r.status, reason: r.reason, note: r.note,
  move: { verb: r.move_verb, usd: r.move_usd, symbol: r.move_symbol, block: r.move_block, tx: r.move_tx },
  holdings_usd: r.holdings_usd, holdings: r.holdings.map((h) => ({ symbol: h.symbol, units: h.units, usd: h.usd })), cohort: r.cohort,
  measured_at: iso(r.measured_at), last_active_at: iso(r.last_active_at)!, first_seen_at: iso(r.first_seen_at)!,
  decided_at: iso(r.decided_at), decided_by: r.decided_by
})

export const IdentityRoutes = Effect.gen(function* () {
  const identity = yield* WalletIdentity
  const discovery = yield* WhaleDiscovery
  const admin = (yield* AuthGuards).admin
  const s = discovery.settings
  return [
    route(E.corrections, {
      guard: admin,
      handler: ({ query }) => identity.corrections(query.address ?? null, query.limit).pipe(Effect.map((l) => ({ corrections: l.map(correctionView) })))
    }),
    route(E.correct, {
      guard: admin,
      handler: ({ body, auth }) => Effect.gen(function* () {
        const after = yield* identity.correct(body, auth.email)
        const [latest] = yield* identity.corrections(body.address, 1)
        return { correction: correctionView(latest!), identity: identityView(after) }
      })
    }),
    route(E.candidates, {
      guard: admin,
      handler: ({ query }) => discovery.candidates(query.status ?? null, query.limit).pipe(Effect.map((rows) => ({
        mode: s.mode, min_usd: s.minUsd, min_holdings_usd: s.minHoldingsUsd, max_tracked: s.maxTracked, candidates: rows.map(candidateView)
      })))
    }),
    route(E.approve, { guard: admin, handler: ({ params, auth }) => discovery.approve(params.address, auth.email).pipe(Effect.map(candidateView)) }),
    route(E.reject, { guard: admin, handler: ({ params, body, auth }) => discovery.reject(params.address, auth.email, body.reason).pipe(Effect.map(candidateView)) })
  ]
})
