/** Echo test helpers: whale records with exact prices, blocks and log positions; HTTP calls as a signed-in user. */
import { Effect } from "effect"
import { expect } from "vitest"
import type { TradeCommand } from "../../server/domains/echo/Batch"
import { Bus } from "../../server/platform/infra/Bus"
import type { TestApp } from "../support/harness"

/** A test app or a service test: what the database helpers below need. */
type Db = Pick<TestApp, "query">

export const UNI = "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984"
export const LINK = "0x514910771af9ca656af840dff83e8264ecf986ca"
export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
export const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
export const WHALE = "0x1111111111111111111111111111111111111111"
export const WHALE2 = "0x2222222222222222222222222222222222222222"

export interface Rec {
  readonly tx: string
  readonly log: number
  readonly wallet: string
  readonly token: string
  readonly symbol: string
  readonly category: "dex_buy" | "dex_sell" | "exchange_deposit" | "exchange_withdraw"
  readonly price: number | null
  readonly usd: number | null
  readonly block: number
  readonly at?: number
}

export const txHash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`

export const insertRecords = async (app: Db, rows: ReadonlyArray<Rec>) => {
  const now = Date.now()
  const r = await app.query<{ id: number }>(
    `INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, category, amount, amount_raw, usd, price_usd, counter_symbol,
       venue, block_number, block_hash, ts, source)
     SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::numeric[],
       $9::numeric[], $10::numeric[], $11::text[], $12::text[], $13::int8[], $14::text[], $15::timestamptz[], $16::text[])
     RETURNING id`,
    [
      rows.map((x) => x.tx), rows.map((x) => x.log), rows.map((x) => x.wallet), rows.map((x) => x.token), rows.map((x) => x.symbol),
      rows.map((x) => x.category), rows.map((x) => String(x.usd !== null && x.price ? x.usd / x.price : 1)), rows.map(() => "1"),
      rows.map((x) => x.usd), rows.map((x) => x.price), rows.map(() => "USDC"), rows.map(() => "uniswap"),
      rows.map((x) => x.block), rows.map((x) => `0xblock${x.block}`), rows.map((x) => new Date(x.at ?? now - 60_000).toISOString()), rows.map(() => "rpc")
    ]
  )
  return r.map((x) => Number(x.id))
}

/** Publishes on the app's bus (e.g. a record on `chain.tx`, as the block listener would after storing it). */
export const publish = (app: TestApp, stream: string, payload: Record<string, unknown>) =>
  app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.publish(stream, payload)))

export const tail = (app: TestApp, stream: string, n: number) =>
  app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.tail(stream, n)))

export const chainMessage = (r: Rec, id: number) => ({
  messageId: `tx:${r.tx}:${r.log}`, id, tx_hash: r.tx, log_index: r.log, block: r.block, ts: new Date().toISOString(), wallet: r.wallet,
  wallet_label: null, token: r.token, symbol: r.symbol, category: r.category, amount: "1", usd: r.usd, price_usd: r.price,
  counter_token: null, counter_symbol: "USDC", venue: "uniswap", source: "rpc"
})

export const api = (app: TestApp, token: string | null) => async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {})
  })
  const text = await res.text()
  let json: any = null
  try { json = JSON.parse(text) } catch { json = text }
  return { status: res.status, body: json }
}

// ---- the batched write path (echo.batch.test.ts on the service, echo.actor.test.ts through the actor) ----------

let seq = 0
export const buy = (userId: number, usd: number, id = `t:${++seq}`): TradeCommand => ({ messageId: id, userId, side: "BUY", token: UNI, usd })
export const sell = (userId: number, quantity: number, id = `t:${++seq}`): TradeCommand => ({ messageId: id, userId, side: "SELL", token: UNI, quantity })
export const tradesOf = (app: Db, userId: number) => app.query<{ command_id: string; side: string; quantity: number; usd: number; gas_usd: number }>(
  "SELECT command_id, side, quantity::float8 AS quantity, usd::float8 AS usd, gas_usd::float8 AS gas_usd FROM echo_trades WHERE user_id = $1 ORDER BY id", [userId])
const bookOf = async (app: Db, userId: number) => {
  const [p] = await app.query<{ cash: number; realized: number; start_cash: number }>("SELECT cash::float8 AS cash, realized::float8 AS realized, start_cash::float8 AS start_cash FROM echo_portfolios WHERE user_id = $1", [userId])
  const hs = await app.query<{ token: string; quantity: number; cost: number }>("SELECT token, quantity::float8 AS quantity, cost::float8 AS cost FROM echo_holdings WHERE user_id = $1", [userId])
  return { ...p!, holdings: hs }
}
export const outcome = async (app: Db, commandId: string) => (await app.query<{ outcome: any }>("SELECT outcome FROM echo_commands WHERE command_id = $1", [commandId]))[0]?.outcome

/** cash ≥ 0, each holding = the sum of its trades, cash + Σ cost = start + realized. */
export const expectConsistent = async (app: Db, userId: number) => {
  const b = await bookOf(app, userId)
  const ts = await tradesOf(app, userId)
  expect(b.cash).toBeGreaterThanOrEqual(0)
  const net = ts.reduce((s, t) => s + (t.side === "BUY" ? t.quantity : -t.quantity), 0)
  expect(b.holdings.find((h) => h.token === UNI)?.quantity ?? 0).toBeCloseTo(net, 6)
  expect(b.cash + b.holdings.reduce((s, h) => s + h.cost, 0)).toBeCloseTo(b.start_cash + b.realized, 4)
}
