/**
 * SQL of the picks one wallet took part in (one of its flaggers), newest first, with its first exit after the flag:
 * the GIN index on `picks.flaggers` (migration 0130) and `pick_exits`' primary key. VOID picks are left out.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanned } from "../../platform/ops/Spans"

export interface WalletPickRow {
  readonly id: number
  readonly token: string
  readonly symbol: string
  readonly flagged_at: Date
  readonly status: string
  readonly whales: number
  readonly conviction: number
  readonly close_return: number | null
  readonly peak_return: number | null
  readonly exit_at: Date | null
  readonly exit_route: string | null
  readonly exit_move: number | null
}

export class WalletPicksRepo extends Effect.Service<WalletPicksRepo>()("app/picks/WalletPicksRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return spanned("WalletPicksRepo", {
      ofWallet: (wallet: string, limit: number) =>
        sql<WalletPickRow>`
          SELECT p.id::int AS id, p.token, p.symbol, p.flagged_at, p.status, p.whales, p.conviction::float8 AS conviction,
            p.close_return, p.peak_return, x.ts AS exit_at, x.route AS exit_route, x.move AS exit_move
          FROM picks p LEFT JOIN pick_exits x ON x.pick_id = p.id AND x.wallet = ${wallet}
          WHERE p.flaggers @> ARRAY[${wallet}]::text[] AND p.status <> 'VOID'
          ORDER BY p.flagged_at DESC, p.id DESC LIMIT ${limit}`.pipe(Effect.orDie)
    } as const)
  })
}) {}
