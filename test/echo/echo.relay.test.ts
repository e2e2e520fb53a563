/**
 * `POST /api/echo/trade` through the user's actor (`ECHO_HTTP_TRADES=actor`, EchoRelay): the answer is the committed
 * outcome of the command the request sent — the trade and the portfolio after it, a 409 with what was available, a
 * 422 for a token that cannot be traded — and a retried command id answers the same trade, applied once.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { QUIET_CHAIN } from "../support/whales"
import { api, insertRecords, txHash, UNI, USDC, WHALE } from "./support"

let app: TestApp
let call: ReturnType<typeof api>

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, ECHO_HTTP_TRADES: "actor", ECHO_START_CASH: "1000" } })
  await insertRecords(app, [{ tx: txHash(1), log: 0, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 10, usd: 100_000, block: 100 }])
  await createUser(app, { email: "relay@example.com", tier: "whale" })
  call = api(app, (await login(app, "relay@example.com")).token)
})
afterAll(async () => {
  await app?.close()
})

it("answers the actor's committed trade, once per command id", async () => {
  const first = await call("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 100, command_id: "relay-cmd-0001" })
  expect(first.status).toBe(200)
  expect(first.body).toMatchObject({ replayed: false, trade: { side: "BUY", token: UNI, usd: 100, command_id: expect.stringContaining("relay-cmd-0001") } })
  expect(first.body.portfolio.cash).toBeCloseTo(1000 - 100 - first.body.trade.gas_usd, 4)
  const again = await call("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 100, command_id: "relay-cmd-0001" })
  expect(again.status).toBe(200)
  expect(again.body).toMatchObject({ replayed: true, trade: { id: first.body.trade.id } })
  expect((await call("GET", "/api/echo/trades")).body.total).toBe(1)
})

it("answers a rejection with what was available (409) and an untradable token with 422", async () => {
  const big = await call("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 5_000 })
  expect(big.status).toBe(409)
  expect(big.body).toMatchObject({ code: "insufficient_cash" })
  expect(big.body.available_cash).toBeGreaterThan(0)
  const stable = await call("POST", "/api/echo/trade", { side: "BUY", token: USDC, usd: 10 })
  expect(stable.status).toBe(422)
})

it("keeps cash ≥ 0 with 12 concurrent requests of one user", async () => {
  const rs = await Promise.all(Array.from({ length: 12 }, () => call("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 150 })))
  expect(rs.every((r) => r.status === 200 || r.status === 409)).toBe(true)
  const pf = (await call("GET", "/api/echo/portfolio")).body
  expect(pf.cash).toBeGreaterThanOrEqual(0)
  expect(rs.filter((r) => r.status === 200).length).toBeGreaterThan(0)
})
