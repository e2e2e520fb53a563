/**
 * SQL of convergence's shared window (`alert_convergence_buys`) and fires (`alert_convergence_fired`), migration
 * 0052, and only that. Infrastructure faults are defects here; every method is a span (`ConvergenceRepo.<method>`).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A whale buy in a convergence window (times in epoch ms). */
export interface ConvergenceBuy {
  readonly token: string
  readonly key: string
  readonly wallet: string
  readonly label: string | null
  readonly usd: number
  readonly at: number
}

/** A fire asked for: the alert, the token, the firing record's key and time, and the alert's window. */
export interface Fire {
  readonly alertId: number
  readonly token: string
  readonly at: number
  readonly key: string
  readonly windowMs: number
}

export class ConvergenceRepo extends Effect.Service<ConvergenceRepo>()("app/AlertConvergenceRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie

    return {
      /** Stores buys of watched tokens (a redelivered record's again is a no-op). */
      addBuys: Effect.fn("ConvergenceRepo.addBuys")((buys: ReadonlyArray<ConvergenceBuy>) =>
        buys.length === 0 ? Effect.void : sql`
          INSERT INTO alert_convergence_buys (token, record_key, wallet, label, usd, at)
          SELECT * FROM unnest(${buys.map((b) => b.token)}::text[], ${buys.map((b) => b.key)}::text[], ${buys.map((b) => b.wallet)}::text[],
                               ${buys.map((b) => b.label)}::text[], ${buys.map((b) => b.usd)}::float8[], ${buys.map((b) => new Date(b.at).toISOString())}::timestamptz[])
          ON CONFLICT (token, record_key) DO NOTHING`.pipe(Effect.asVoid, die)),

      /** The stored buys of these tokens in [from, to]. */
      buysOf: Effect.fn("ConvergenceRepo.buysOf")((tokens: ReadonlyArray<string>, from: Date, to: Date) =>
        sql<{ token: string; record_key: string; wallet: string; label: string | null; usd: number; at: Date }>`
          SELECT token, record_key, wallet, label, usd, at FROM alert_convergence_buys
          WHERE token = ANY(${tokens}::text[]) AND at >= ${from} AND at <= ${to} ORDER BY at`.pipe(
          Effect.map((rows) => rows.map((r): ConvergenceBuy => ({ token: r.token, key: r.record_key, wallet: r.wallet, label: r.label, usd: Number(r.usd), at: r.at.getTime() }))), die)),

      /**
       * Takes the fires that are still free: an alert fires for a token at most once per its window, whichever
       * process asks; the record that fired may take it again. The taken ones, as `alertId|recordKey`.
       */
      takeFires: Effect.fn("ConvergenceRepo.takeFires")((fires: ReadonlyArray<Fire>) =>
        fires.length === 0 ? Effect.succeed(new Set<string>()) : sql<{ alert_id: number; record_key: string }>`
          INSERT INTO alert_convergence_fired AS f (alert_id, token, fired_at, quiet_until, record_key)
          SELECT i.a, i.t, i.at, i.at + make_interval(secs => i.ms / 1000.0), i.k
          FROM unnest(${fires.map((f) => f.alertId)}::bigint[], ${fires.map((f) => f.token)}::text[], ${fires.map((f) => new Date(f.at).toISOString())}::timestamptz[],
                      ${fires.map((f) => f.windowMs)}::float8[], ${fires.map((f) => f.key)}::text[]) AS i(a, t, at, ms, k)
          JOIN alert_subscriptions s ON s.id = i.a
          ORDER BY i.a, i.t
          ON CONFLICT (alert_id, token) DO UPDATE SET fired_at = excluded.fired_at, quiet_until = excluded.quiet_until, record_key = excluded.record_key
          WHERE f.record_key = excluded.record_key OR f.quiet_until <= excluded.fired_at
          RETURNING alert_id, record_key`.pipe(Effect.map((rows) => new Set(rows.map((r) => `${Number(r.alert_id)}|${r.record_key}`))), die)),

      /** Reorg retractions: these records' buys leave the window. */
      retractBuys: Effect.fn("ConvergenceRepo.retractBuys")((keys: ReadonlyArray<string>) =>
        sql`DELETE FROM alert_convergence_buys WHERE record_key = ANY(${keys}::text[])`.pipe(Effect.asVoid, die)),

      /** Drops buys older than every window. */
      pruneBuys: Effect.fn("ConvergenceRepo.pruneBuys")((before: Date) =>
        sql`DELETE FROM alert_convergence_buys WHERE at < ${before}`.pipe(Effect.asVoid, die))
    } as const
  })
}) {}
