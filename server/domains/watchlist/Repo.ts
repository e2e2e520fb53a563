/**
 * The SQL of the watchlist (migration 0090): its own tables only. Tokens and prices come from the chain domain's
 * service (`Chain`).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanned } from "../../platform/ops/Spans"

export interface ItemRow {
  readonly id: number
  readonly user_id: number
  readonly token: string
  readonly symbol: string
  readonly price_at_add_usd: number | null
  readonly source: "manual" | "quick_add" | "pending"
  readonly added_at: Date
}

const ITEM = `id::int AS id, user_id::int AS user_id, token, symbol, price_at_add_usd::float8 AS price_at_add_usd, source, added_at`

export class WatchlistRepo extends Effect.Service<WatchlistRepo>()("app/watchlist/WatchlistRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie
    return spanned("WatchlistRepo", {
      items: (userId: number) => sql.unsafe<ItemRow>(`SELECT ${ITEM} FROM watchlist_items WHERE user_id = $1 ORDER BY id`, [userId]).pipe(die),
      count: (userId: number) => sql<{ n: number }>`SELECT count(*)::int AS n FROM watchlist_items WHERE user_id = ${userId}`.pipe(Effect.map((r) => r[0]!.n), die),
      byToken: (userId: number, token: string) =>
        sql.unsafe<ItemRow>(`SELECT ${ITEM} FROM watchlist_items WHERE user_id = $1 AND token = $2`, [userId, token]).pipe(Effect.map((r) => r[0] ?? null), die),
      /** The new item, or null when the token is on the list already. */
      insert: (i: { userId: number; token: string; symbol: string; price: number | null; source: ItemRow["source"] }) =>
        sql.unsafe<ItemRow>(
          `INSERT INTO watchlist_items (user_id, token, symbol, price_at_add_usd, source) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (user_id, token) DO NOTHING RETURNING ${ITEM}`,
          [i.userId, i.token, i.symbol, i.price, i.source]
        ).pipe(Effect.map((r) => r[0] ?? null), die),
      remove: (userId: number, id: number) =>
        sql<{ id: number }>`DELETE FROM watchlist_items WHERE id = ${id} AND user_id = ${userId} RETURNING id::int AS id`.pipe(Effect.map((r) => r.length > 0), die),
      addPending: (userId: number, token: string, symbol: string) =>
        sql`INSERT INTO watchlist_pending (user_id, token, symbol) VALUES (${userId}, ${token}, ${symbol}) ON CONFLICT DO NOTHING`.pipe(Effect.asVoid, die),
      pending: (userId: number) => sql<{ token: string; symbol: string }>`SELECT token, symbol FROM watchlist_pending WHERE user_id = ${userId} ORDER BY created_at`.pipe(die),
      dropPending: (userId: number, token: string) => sql`DELETE FROM watchlist_pending WHERE user_id = ${userId} AND token = ${token}`.pipe(Effect.asVoid, die),
      /** Users watching each of `tokens` (the live updates' fan-out). */
      watchers: (tokens: ReadonlyArray<string>) =>
        tokens.length === 0
          ? Effect.succeed([] as Array<{ user_id: number; token: string; id: number }>)
          : sql<{ user_id: number; token: string; id: number }>`SELECT user_id::int AS user_id, token, id::int AS id FROM watchlist_items WHERE token IN ${sql.in(tokens)}`.pipe(die),
      rememberInterest: (email: string, category: string, userId: number | null) =>
        sql`INSERT INTO watchlist_interests (email, category, user_id) VALUES (${email}, ${category}, ${userId})
            ON CONFLICT (email, category) DO UPDATE SET user_id = coalesce(EXCLUDED.user_id, watchlist_interests.user_id)`.pipe(Effect.asVoid, die)
    } as const)
  })
}) {}
