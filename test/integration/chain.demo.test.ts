/**
 * `npm start` defaults (no ETH_RPC_URL): the block listener follows the demo chain; its first start ingests the
 * last hour of demo blocks, and every stored record is on `chain.tx`, flagged as demo data.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ActorRegistry } from "../../actors/runtime/Registry"
import { ChainTxMessage, STREAMS } from "../../schema/streams"
import { Bus } from "../../server/infra/Bus"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

let app: TestApp
beforeAll(async () => {
  app = await startApp()
}, 120_000)
afterAll(async () => {
  await app?.close()
})

const count = async (sql: string) => Number((await app.query<{ n: string }>(sql))[0]!.n)

describe("demo chain with the default settings", () => {
  it("stores the demo whale transactions flagged as demo and publishes each on chain.tx", async () => {
    await waitFor(async () => (await count("SELECT count(*)::text AS n FROM whale_tx")) >= 50, 90_000, 250)
    expect(await count("SELECT count(*)::text AS n FROM whale_tx WHERE source <> 'demo'")).toBe(0)
    const [cp] = await app.query<{ block_number: number }>("SELECT block_number FROM chain_checkpoint WHERE name = 'block-listener'")
    expect(cp!.block_number).toBeGreaterThan(20_000_000)

    // Everything stored up to the checkpoint is published (the block being stored may not be yet).
    const stored = await app.query<{ tx_hash: string; log_index: number; wallet: string; token: string }>(
      "SELECT tx_hash, log_index, wallet, token FROM whale_tx WHERE block_number <= $1", [cp!.block_number])
    await waitFor(async () => {
      const tail = await app.runtime.runPromise(Effect.flatMap(Bus, (b) => b.tail(STREAMS.chainTx, 100_000)))
      return tail.length >= stored.length
    }, 30_000, 100)
    const tail = await app.runtime.runPromise(Effect.flatMap(Bus, (b) => b.tail(STREAMS.chainTx, 100_000)))
    const messages = tail.map((e) => ChainTxMessage.parse(e.payload))
    expect(messages.every((m) => m.source === "demo")).toBe(true)
    const ids = new Set(messages.map((m) => m.messageId))
    expect(ids.size).toBe(messages.length)
    for (const r of stored) expect(ids.has(`${r.tx_hash}:${r.log_index}:${r.wallet}:${r.token}`)).toBe(true)
    // Demo swaps are priced from the demo's own WETH/USDC pool trades.
    expect(messages.filter((m) => m.usd !== null).length).toBeGreaterThan(messages.length / 2)
    expect(messages.some((m) => m.wallet_label !== null)).toBe(true)

    const status = await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.get("block-listener")))
    expect(status).toMatchObject({ state: "running", restarts: 0 })
  }, 120_000)
})
