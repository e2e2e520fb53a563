/** SQL of the Whale Sentiment Index: daily figures from the daily roll-up, and the stored daily closes. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { DayFigures, IndexComponent } from "./IndexFormula"
import { countedWallet, type Scope } from "./Whales"
import { spanned } from "../../platform/ops/Spans"

export interface StoredClose {
  readonly day: string
  readonly score: number
  readonly label: string
  readonly components: ReadonlyArray<IndexComponent>
}

export class IndexRepo extends Effect.Service<IndexRepo>()("app/analytics/IndexRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Figures of every day in `[first, last]` that has records (other days are empty). */
    const dayFigures = (first: string, last: string, scope: Scope = "whales") => sql<{
      day: string; buy: number; sell: number; withdraw: number; deposit: number; buyers: number; sellers: number
    }>`
      WITH totals AS (
        SELECT f.day, sum(f.dex_buy_usd) AS buy, sum(f.dex_sell_usd) AS sell,
          coalesce(sum(f.exchange_withdraw_usd) FILTER (WHERE NOT coalesce(t.stable, false)), 0) AS withdraw,
          coalesce(sum(f.exchange_deposit_usd) FILTER (WHERE NOT coalesce(t.stable, false)), 0) AS deposit
        FROM whale_flow_daily f LEFT JOIN tokens t ON t.address = f.token
        WHERE f.day BETWEEN ${first}::date AND ${last}::date AND ${countedWallet(sql, scope, "f.wallet")}
        GROUP BY f.day
      ), wallets AS (
        SELECT day, sum(dex_buy_usd - dex_sell_usd) AS net
        FROM whale_flow_daily f
        WHERE day BETWEEN ${first}::date AND ${last}::date AND dex_buys + dex_sells > 0 AND ${countedWallet(sql, scope, "f.wallet")}
        GROUP BY day, wallet
      ), breadth AS (
        SELECT day, count(*) FILTER (WHERE net > 0)::int AS buyers, count(*) FILTER (WHERE net < 0)::int AS sellers
        FROM wallets GROUP BY day
      )
      SELECT totals.day::text AS day, totals.buy, totals.sell, totals.withdraw, totals.deposit,
        coalesce(breadth.buyers, 0) AS buyers, coalesce(breadth.sellers, 0) AS sellers
      FROM totals LEFT JOIN breadth ON breadth.day = totals.day`.pipe(
      Effect.map((rows) =>
        rows.map((r): DayFigures => ({
          day: r.day, buyUsd: r.buy, sellUsd: r.sell, withdrawUsd: r.withdraw, depositUsd: r.deposit, buyers: r.buyers, sellers: r.sellers
        }))
      ),
      Effect.orDie
    )

    /** A day's DEX volume and wallets, whales (`bot = false`) and the excluded classes (`bot = true`) apart. */
    const daySplit = (day: string) => sql<{ bot: boolean; usd: number; wallets: number }>`
      SELECT NOT ${countedWallet(sql, "whales", "f.wallet")} AS bot, sum(f.dex_buy_usd + f.dex_sell_usd)::float8 AS usd,
        count(DISTINCT f.wallet)::int AS wallets
      FROM whale_flow_daily f WHERE f.day = ${day}::date AND f.dex_buys + f.dex_sells > 0
      GROUP BY 1`.pipe(Effect.orDie)

    const firstDataDay = sql<{ day: string | null }>`SELECT min(day)::text AS day FROM whale_flow_daily`.pipe(
      Effect.map((rows) => rows[0]?.day ?? null),
      Effect.orDie
    )

    const closes = (first: string, last: string) => sql<StoredClose>`
      SELECT day::text AS day, score, label, components FROM whale_index_daily
      WHERE day BETWEEN ${first}::date AND ${last}::date ORDER BY day`.pipe(Effect.orDie)

    /** Stores a close; a day closed already keeps its first close. True when stored now. */
    const storeClose = (close: StoredClose) => sql<{ day: string }>`
      INSERT INTO whale_index_daily (day, score, label, components)
      VALUES (${close.day}::date, ${close.score}, ${close.label}, ${JSON.stringify(close.components)}::jsonb)
      ON CONFLICT (day) DO NOTHING RETURNING day::text AS day`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)

    return spanned("IndexRepo", { dayFigures, daySplit, firstDataDay, closes, storeClose } as const)
  })
}) {}
