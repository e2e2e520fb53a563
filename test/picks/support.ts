/**
 * A picks service on a fresh database (real PostgreSQL with DATABASE_URL, else embedded PGlite) and the bus (Redis
 * with REDIS_URL, else in-process), without the app (`startServices`): for the service-level tests of the picks
 * domain. Times are controlled: `at(ms, e)` runs `e` with the clock set to `ms` (Effect's TestClock).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, TestClock, TestContext } from "effect"
import { Chain } from "../../server/domains/chain/Chain"
import { ChainSourceLive } from "../../server/domains/chain/SourceLive"
import type { Bus } from "../../server/platform/infra/Bus"
import { PicksConfig } from "../../server/domains/picks/Config"
import { Picks } from "../../server/domains/picks/Picks"
import { PicksRepo } from "../../server/domains/picks/Repo"
import type { ChainTxMessage } from "../../schema/streams"
import { startServices } from "../support/serviceTest"

export const startPicks = async (extraEnv: Record<string, string> = {}) => {
  const { runtime, close } = await startServices(
    Picks.Default.pipe(
      Layer.provideMerge(PicksRepo.Default),
      Layer.provideMerge(PicksConfig.Default),
      Layer.provideMerge(Chain.Default.pipe(Layer.provide(ChainSourceLive)))
    ),
    { env: { PICKS_CACHE_SECONDS: "0", ...extraEnv } }
  )
  const run = <A>(e: Effect.Effect<A, unknown, Picks | PicksRepo | Bus | SqlClient.SqlClient>) => runtime.runPromise(e)
  const at = <A>(ms: number, e: Effect.Effect<A, unknown, Picks | PicksRepo | Bus | SqlClient.SqlClient>) =>
    run(Effect.gen(function* () {
      yield* TestClock.setTime(ms)
      return yield* e
    }).pipe(Effect.provide(TestContext.TestContext)))
  const query = <T extends object>(text: string, params: ReadonlyArray<unknown> = []) =>
    run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<never>)).pipe(Effect.map((rows) => [...rows])))
  await query(`INSERT INTO tokens (address, symbol, decimals, stable, eth_derivative, blacklisted) VALUES
    ('${AAA}', 'AAA', 18, false, false, false), ('${BBB}', 'BBB', 18, false, false, false),
    ('${USDC}', 'USDC', 6, true, false, false), ('${WETH}', 'WETH', 18, false, true, false)`)
  return { run, at, query, close }
}

export const AAA = `0x${"a".repeat(40)}`
export const BBB = `0x${"b".repeat(40)}`
export const USDC = `0x${"c".repeat(40)}`
export const WETH = `0x${"e".repeat(40)}`
export const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`

let seq = 0
export const record = (o: Partial<ChainTxMessage> & Pick<ChainTxMessage, "wallet" | "token" | "category" | "ts">): ChainTxMessage => {
  seq++
  const symbol = o.token === AAA ? "AAA" : o.token === BBB ? "BBB" : o.token === USDC ? "USDC" : "WETH"
  return {
    messageId: `tx:${seq}`, id: seq, tx_hash: `0x${seq.toString(16).padStart(64, "0")}`, log_index: 0, block: 1000 + seq,
    wallet_label: null, symbol, amount: "100", usd: o.price_usd === undefined || o.price_usd === null ? null : 100 * o.price_usd,
    price_usd: null, counter_token: null, counter_symbol: null, venue: null, source: "replay", ...o
  }
}
