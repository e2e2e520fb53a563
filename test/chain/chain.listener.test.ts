/**
 * The block listener end to end on recorded mainnet blocks 17173049–17173050, served by the JSON-RPC replay
 * (so the real viem path runs): what it stores and publishes, through injected rate limits and 5xx, and through
 * a reorg. Expectations come from the fixture's decoded transfers and from the decoding pipeline run directly.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { isRetraction } from "../../schema/streams"
import { WETH } from "../../server/domains/chain/Reference"
import type { WhaleRecord } from "../../server/domains/chain/Types"
import { cents } from "../../server/domains/chain/Wire"
import { BLOCKS, chainFixtures, keyOf, loadChainFixture, referenceRecords, type ChainFixture } from "../support/chainFixture"
import { fixturePath } from "../support/fixtures"
import { asRow, checkpointOf, listenerEnv, messagesOf, rowsOf, sortRows, trackWallets, withoutId } from "../support/chainApp"
import { startApp, type TestApp } from "../support/harness"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"
import { waitFor } from "../support/wait"

const fx = chainFixtures()

const listenerStatus = (app: TestApp) => app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.get("block-listener")))

interface ListedToken { chainId: number; address: string; symbol: string; decimals: number }
const readTokenList = () =>
  JSON.parse(readFileSync(fixturePath("token-list", "optimism.tokenlist.json"), "utf8")) as { tokens: Array<ListedToken> }
/**
 * A token moved by a tracked wallet that neither the seed nor the token-list fixture knows: written here (not
 * real metadata) into a copy of the list, so that the replay answers symbol()/decimals() for it.
 */
const EXTRA_TOKEN: ListedToken = { chainId: 1, address: "0x1ce270557c1f68cfb577b856766310bf8b47fd9c", symbol: "FIXT", decimals: 9 }
const tokenListWith = (token: ListedToken) => {
  const list = readTokenList()
  const file = join(mkdtempSync(join(tmpdir(), "whale-tokens-")), "list.json")
  writeFileSync(file, JSON.stringify({ ...list, tokens: [...list.tokens, token] }))
  return file
}

describe.skipIf(!fx.available)(`block listener on recorded mainnet blocks${fx.skipNote}`, () => {
  let fixture: ChainFixture
  let server: RpcReplayServer
  let app: TestApp
  let expected: Array<WhaleRecord>

  beforeAll(async () => {
    fixture = loadChainFixture()
    server = await startRpcReplay({ tokenList: tokenListWith(EXTRA_TOKEN) })
    expected = await referenceRecords(server.url, fixture.wallets)
    server.setHead(BLOCKS[0] - 1)
    app = await startApp({ env: listenerEnv(server.url) })
    // Tracked after the start: the listener picks up the changed wallet table.
    await trackWallets(app, fixture.wallets)
    // Rate limits and server errors on the way: backed off and retried, no block lost.
    server.failNext("rpc-limit", 2, "eth_blockNumber")
    server.failNext("http-429", 2, "eth_getBlockByNumber")
    server.failNext("http-500", 2, "eth_getLogs")
    server.failNext("http-429", 1, "eth_getTransactionReceipt")
    server.setHead(BLOCKS[1])
    await waitFor(async () => (await checkpointOf(app))?.block_number === BLOCKS[1], 60_000, 50)
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await server?.close()
  })

  it("stores exactly the records of the decoding pipeline, once each, with the checkpoint at the last block", async () => {
    expect(expected.length).toBeGreaterThanOrEqual(50)
    expect((await rowsOf(app)).map(withoutId)).toEqual(sortRows(expected.map(asRow)))
    expect(await checkpointOf(app)).toEqual({ block_number: BLOCKS[1], block_hash: fixture.blockHash.get(BLOCKS[1]) })
    const blocks = await app.query<{ number: number; hash: string; records: number; published: boolean }>(
      "SELECT number, hash, records, published_at IS NOT NULL AS published FROM chain_blocks ORDER BY number")
    expect(blocks).toEqual(BLOCKS.map((n) => ({
      number: n, hash: fixture.blockHash.get(n), records: expected.filter((r) => r.block === n).length, published: true
    })))
  })

  it("decodes every swap of the swap senders with the token, side and amount of the recorded transfers", async () => {
    const swaps = (await rowsOf(app)).filter((r) => fixture.swapSenders.has(r.wallet) && r.token !== WETH)
    expect(swaps.length).toBeGreaterThanOrEqual(45)
    for (const r of swaps) {
      const net = fixture.netOf(r.tx_hash, r.wallet).get(r.token)
      expect(net, `${r.tx_hash} ${r.token}`).toBeDefined()
      expect(r.category).toBe(net! > 0n ? "dex_buy" : "dex_sell")
      expect(r.amount_raw).toBe((net! < 0n ? -net! : net!).toString())
    }
  })

  it("values a stablecoin-paired swap at the stable amount", async () => {
    const rows = await rowsOf(app)
    const stablePaired = rows.filter((r) => r.counter_symbol === "USDT" || r.counter_symbol === "USDC" || r.counter_symbol === "DAI")
    expect(stablePaired.length).toBeGreaterThanOrEqual(5)
    for (const r of stablePaired) expect(r.usd).toBe(cents(Number(r.counter_amount)))
    expect(rows.find((r) => r.tx_hash.startsWith("0x550f63a5c8"))).toMatchObject({ category: "dex_sell", counter_symbol: "USDT", usd: 7200 })
  })

  it("publishes each stored record on chain.tx after storing it, in chain order", async () => {
    const rows = await rowsOf(app)
    await waitFor(async () => (await messagesOf(app)).length >= rows.length, 10_000)
    const messages = await messagesOf(app)
    expect(messages.map((m) => m.messageId)).toEqual(rows.map(keyOf))
    for (const [i, m] of messages.entries()) {
      if (isRetraction(m)) throw new Error(`unexpected retraction ${m.messageId}`)
      const r = rows[i]!
      expect(m).toEqual({
        messageId: keyOf(r), id: r.id, tx_hash: r.tx_hash, log_index: r.log_index, block: r.block_number, ts: r.ts.toISOString(),
        wallet: r.wallet, wallet_label: expect.any(String), token: r.token, symbol: r.symbol, category: r.category,
        amount: r.amount, usd: r.usd, price_usd: r.price_usd, counter_token: r.counter_token, counter_symbol: r.counter_symbol,
        venue: r.venue, source: "rpc"
      })
    }
  })

  it("stores token metadata read over RPC, and reverting tokens as unknown", async () => {
    // The replay answers symbol()/decimals() for tokens of its token list and reverts for the others.
    const listed = new Map([...readTokenList().tokens, EXTRA_TOKEN].filter((t) => t.chainId === 1).map((t) => [t.address.toLowerCase(), t]))
    const learned = await app.query<{ address: string; symbol: string; decimals: number | null; source: string }>(
      "SELECT address, symbol, decimals, source FROM tokens WHERE source <> 'seed'")
    const read = learned.filter((t) => t.source === "chain")
    const unknown = learned.filter((t) => t.source === "unknown")
    expect(read.map((t) => t.address)).toContain(EXTRA_TOKEN.address)
    for (const t of read) expect([t.symbol, t.decimals]).toEqual([listed.get(t.address)?.symbol, listed.get(t.address)?.decimals])
    expect(unknown.length).toBeGreaterThan(5)
    for (const t of unknown) expect([t.symbol, t.decimals, listed.has(t.address)]).toEqual(["UNKNOWN", null, false])
    // Every token of a stored record is known to the tokens table.
    const missing = await app.query("SELECT DISTINCT token FROM whale_tx WHERE token NOT IN (SELECT address FROM tokens)")
    expect(missing).toEqual([])
  })

  it("rode out the injected faults inside the actor (no crash, no restart)", async () => {
    // The lag is updated when the loop comes round again, after the last block's taps (the identity engine) ran.
    await waitFor(async () => (await listenerStatus(app))?.lag === 0, 10_000, 50)
    const status = await listenerStatus(app)
    expect(status, JSON.stringify(status)).toMatchObject({ state: "running", restarts: 0, lag: 0 })
  })
})

describe.skipIf(!fx.available)(`block listener through a reorg${fx.skipNote}`, () => {
  let fixture: ChainFixture
  let server: RpcReplayServer
  let app: TestApp
  let expected: Array<WhaleRecord>

  beforeAll(async () => {
    fixture = loadChainFixture()
    server = await startRpcReplay()
    expected = await referenceRecords(server.url, fixture.wallets)
    server.setHead(BLOCKS[0] - 1)
    app = await startApp({ env: listenerEnv(server.url) })
    await trackWallets(app, fixture.wallets)
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await server?.close()
  })

  it("rolls back the records of an orphaned block and ingests the new branch: one record per movement, none orphaned", async () => {
    const first = expected.filter((r) => r.block === BLOCKS[0])
    // A competing block 17173049 with only two of the tracked transactions becomes the head, and is ingested.
    const kept = new Set([...new Set(first.map((r) => r.txHash))].slice(0, 2))
    const orphan = server.reorg(BLOCKS[0], (h) => kept.has(h))
    await waitFor(async () => (await checkpointOf(app))?.block_hash === orphan, 60_000, 50)
    const before = await rowsOf(app)
    expect(before.length).toBeGreaterThan(0)
    expect(new Set(before.map((r) => r.tx_hash))).toEqual(kept)
    expect(before.every((r) => r.block_hash === orphan)).toBe(true)

    // The chain reorganises back: block 17173050 names the original 17173049 as its parent.
    server.clearReorgs()
    server.setHead(BLOCKS[1])
    await waitFor(async () => (await checkpointOf(app))?.block_number === BLOCKS[1], 60_000, 50)
    const after = await rowsOf(app)
    expect(after.map(withoutId)).toEqual(sortRows(expected.map(asRow)))
    expect(after.some((r) => r.block_hash === orphan)).toBe(false)
    expect(new Set(after.map(keyOf)).size).toBe(after.length)
    const blocks = await app.query<{ number: number; hash: string }>("SELECT number, hash FROM chain_blocks ORDER BY number")
    expect(blocks).toEqual(BLOCKS.map((n) => ({ number: n, hash: fixture.blockHash.get(n) })))

    // Every stored record was published; the orphan's were published before the reorg and retracted by it, each
    // retraction naming the record and the orphaned block, before the new branch's records.
    await waitFor(async () => (await messagesOf(app)).length >= 2 * before.length + after.length, 10_000)
    const messages = await messagesOf(app)
    expect(messages.map((m) => m.messageId)).toEqual([
      ...before.map(keyOf), ...before.map((r) => `retraction:${keyOf(r)}@${orphan}`), ...after.map(keyOf)
    ])
    const retractions = messages.filter(isRetraction)
    expect(retractions.map((m) => [m.tx_hash, m.log_index, m.wallet, m.token, m.category, m.usd, m.block, m.reason]))
      .toEqual(before.map((r) => [r.tx_hash, r.log_index, r.wallet, r.token, r.category, r.usd, r.block_number, "reorg"]))
    // The analytics caches of this process saw them (and dropped what they had computed).
    const retractionsSeen = async () => Number(/^analytics_retractions_total(?:\{\})? (\d+)/m.exec(await (await fetch(`${app.metricsUrl}/metrics`)).text())?.[1] ?? 0)
    await waitFor(async () => (await retractionsSeen()) >= before.length, 10_000)
    const status = await listenerStatus(app)
    expect(status, JSON.stringify(status)).toMatchObject({ state: "running", restarts: 0 })
    // Nothing left in the retraction outbox once they are published.
    expect(await app.query("SELECT 1 FROM chain_retraction_outbox")).toEqual([])
  }, 180_000)

  it("publishes at its next start the retractions a life wrote with its rollback but did not get to publish", async () => {
    // What a crash between the rollback's commit and the publish leaves behind: a retraction in the outbox.
    const record = (await rowsOf(app))[0]!
    const retraction = {
      messageId: `retraction:${keyOf(record)}@0x${"ab".repeat(32)}`, kind: "retraction", id: null, tx_hash: record.tx_hash,
      log_index: record.log_index, block: record.block_number, wallet: record.wallet, token: record.token,
      category: record.category, usd: record.usd, reason: "reorg"
    }
    await app.query("INSERT INTO chain_retraction_outbox (message_id, payload) VALUES ($1, $2::jsonb)", [retraction.messageId, JSON.stringify(retraction)])
    const restartsBefore = (await listenerStatus(app))!.restarts
    await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.restart("block-listener")))
    await waitFor(async () => (await messagesOf(app)).some((m) => m.messageId === retraction.messageId), 30_000, 50)
    expect((await messagesOf(app)).filter((m) => m.messageId === retraction.messageId)).toEqual([retraction])
    await waitFor(async () => (await app.query("SELECT 1 FROM chain_retraction_outbox")).length === 0, 10_000, 50)
    expect((await listenerStatus(app))!.restarts).toBe(restartsBefore + 1)
  }, 60_000)
})
