/**
 * Sells paid in native ETH, on real mainnet transactions (blocks 17173049–17173050, ethereum-etl export): every
 * transaction in which the sender sent one token and a contract unwrapped WETH (Withdrawal) is decoded for the
 * sender as a tracked wallet. The expected ETH is computed here from the fixture's own logs, not by the decoder:
 * the WETH the withdrawing contract received from the pool the sender's tokens went to, in the same transaction.
 * Also: an aggregator whose executor unwraps (MetaMask → 1inch v5, 0xd5b8345a…) with the executor unlabelled,
 * so that only the "unaccounted Withdrawal" rule can attribute it; and the same transaction with traces.
 */
import { describe, expect, it } from "vitest"
import { formatUnits } from "viem"
import { decodeTransaction, TOPIC_TRANSFER, TOPIC_WETH_WITHDRAWAL, type DecodeContext } from "../../server/domains/chain/Decode"
import { etlLog, etlTransaction, EtlLog, EtlTransaction, readJsonLines } from "../../server/domains/chain/Etl"
import { labelLookup, loadReference, tokenLookup, WETH } from "../../server/domains/chain/Reference"
import type { RawLog, RawTx } from "../../server/domains/chain/Types"
import { fromCallTracer, fromParityTraces } from "../../server/domains/chain/Traces"
import { Effect } from "effect"
import { ingestBlock, TokenCache } from "../../server/domains/chain/Ingest"
import { PriceBook } from "../../server/domains/chain/PriceBook"
import { makeRpcSource } from "../../server/domains/chain/RpcSource"
import { fixturePath, requireFixtures } from "../support/fixtures"
import { startRpcReplay } from "../support/rpcReplay"

const SET = "eth-mainnet/blocks_17173049_17173050"
const fx = requireFixtures(SET)
const ref = loadReference()
const word = (topic: string | undefined) => `0x${(topic ?? "").slice(26)}`

describe.skipIf(!fx.available)(`native-ETH sells on real mainnet transactions${fx.skipNote}`, () => {
  const txs = fx.available ? readJsonLines(fixturePath(SET, "expected_transactions.json"), EtlTransaction).map(etlTransaction) : []
  const logs = fx.available ? readJsonLines(fixturePath(SET, "expected_logs.json"), EtlLog).map(etlLog) : []
  const logsOf = (hash: string) => logs.filter((l) => l.transactionHash === hash).sort((a, b) => a.logIndex - b.logIndex)
  const ctxFor = (wallet: string, labels = labelLookup(ref.labels)): DecodeContext =>
    ({ wallets: new Set([wallet]), tokens: tokenLookup(ref.tokens), labels })
  const transfers = (l: ReadonlyArray<RawLog>) => l.filter((x) => x.topics[0] === TOPIC_TRANSFER && x.topics.length === 3)

  /** Sender sent exactly one token (not WETH), received nothing, and some contract unwrapped WETH. */
  const sells = txs.filter((tx) => {
    const l = logsOf(tx.hash)
    const sent = new Set(transfers(l).filter((t) => word(t.topics[1]) === tx.from).map((t) => t.address))
    const received = transfers(l).some((t) => word(t.topics[2]) === tx.from)
    return tx.status !== "reverted" && tx.value === 0n && sent.size === 1 && !sent.has(WETH) && !received &&
      l.some((x) => x.address === WETH && x.topics[0] === TOPIC_WETH_WITHDRAWAL)
  })

  /** The WETH the unwrapping contract got from the pool the sender's tokens went to (the fixture's own logs). */
  const expectedEth = (tx: RawTx): bigint | undefined => {
    const l = logsOf(tx.hash)
    const sent = transfers(l).filter((t) => word(t.topics[1]) === tx.from)
    const pools = new Set(sent.map((t) => word(t.topics[2])))
    const after = Math.min(...sent.map((t) => t.logIndex))
    const unwrappers = new Set(l.filter((x) => x.address === WETH && x.topics[0] === TOPIC_WETH_WITHDRAWAL).map((x) => word(x.topics[1])))
    const legs = transfers(l).filter((t) => t.address === WETH && t.logIndex > after && pools.has(word(t.topics[1])) && unwrappers.has(word(t.topics[2])))
    return legs.length === 0 ? undefined : legs.reduce((s, t) => s + BigInt(t.data), 0n)
  }

  it("records each one as a dex_sell of the token with the ETH the sender was paid", () => {
    expect(sells.length).toBeGreaterThanOrEqual(10)
    let checked = 0
    for (const tx of sells) {
      const eth = expectedEth(tx)
      if (eth === undefined) continue
      const records = decodeTransaction({ tx, logs: logsOf(tx.hash) }, ctxFor(tx.from))
      expect(records, tx.hash).toHaveLength(1)
      expect(records[0], tx.hash).toMatchObject({ category: "dex_sell", wallet: tx.from, counterToken: WETH, counterAmount: formatUnits(eth, 18) })
      expect(["withdrawal", "inferred"]).toContain(records[0]!.ethVia)
      checked++
    }
    expect(checked).toBeGreaterThanOrEqual(10)
  })

  it("takes the sender's unwrap, not a fee-on-transfer token's own swap-back through the same router", () => {
    const tx = txs.find((t) => t.hash === "0xda46ac19eb2e326349727fc79e339c813e2eda40cbb406cb06ad85a98844e856")!
    const [record] = decodeTransaction({ tx, logs: logsOf(tx.hash) }, ctxFor(tx.from))
    // Two Withdrawals by Uniswap V2 Router02: 0.1068… ETH (the token's swap-back) and 0.7325… ETH (the sender's).
    expect(record).toMatchObject({ category: "dex_sell", counterAmount: "0.732567623310035213", ethVia: "withdrawal", venue: "Uniswap V2" })
  })

  const AGGREGATED = "0xd5b8345af711792434af6d2506ada1d1ef6ed5dc21e97cafe0bda21ef8e3b7d7"
  const ONEINCH_V5 = "0x1111111254eeb25477b68fb85ed929f73a960582"

  it("attributes an unlabelled executor's unwrap to the sender (aggregator paying in native ETH)", () => {
    const tx = txs.find((t) => t.hash === AGGREGATED)!
    expect(tx.to).toBe("0x881d40237659c251811cec9c364ef91dc08d300c") // MetaMask Swaps; 1inch v5 unwrapped
    const known = decodeTransaction({ tx, logs: logsOf(tx.hash) }, ctxFor(tx.from))
    expect(known[0]).toMatchObject({ category: "dex_buy", token: WETH, amount: "0.108949043932854608", counterAmount: "200", ethVia: "withdrawal" })
    // Without a label for the executor the delegated-router rule cannot apply: the unaccounted Withdrawal does.
    const base = labelLookup(ref.labels)
    const unlabelled = (a: string) => (a === ONEINCH_V5 ? undefined : base(a))
    const inferred = decodeTransaction({ tx, logs: logsOf(tx.hash) }, ctxFor(tx.from, unlabelled))
    expect(inferred[0]).toMatchObject({ category: "dex_buy", token: WETH, amount: "0.108949043932854608", counterSymbol: "USDT", ethVia: "inferred" })
  })

  it("reads the exact internal transfer from call traces (geth callTracer and trace_transaction shapes)", () => {
    const tx = txs.find((t) => t.hash === AGGREGATED)!
    // The trace's shape follows geth's callTracer and OpenEthereum's trace_transaction; the ETH value is the
    // transaction's own unwrap (log 5), paid out by the router to the sender. Not a recorded node answer.
    const paid = 108949043932854608n
    const call = {
      type: "CALL", from: tx.from, to: tx.to, value: "0x0", calls: [
        { type: "CALL", from: tx.to, to: ONEINCH_V5, value: "0x0", calls: [
          { type: "CALL", from: WETH, to: ONEINCH_V5, value: `0x${paid.toString(16)}` },
          { type: "STATICCALL", from: ONEINCH_V5, to: WETH, value: "0x0" }
        ] },
        { type: "CALL", from: tx.to, to: "0x000000000000000000000000000000000000dead", value: "0x5", error: "execution reverted" },
        { type: "CALL", from: tx.to, to: tx.from, value: `0x${paid.toString(16)}` }
      ]
    }
    const internal = fromCallTracer(call)
    expect(internal.map((t) => t.to)).toEqual([ONEINCH_V5, tx.from])
    const parity = fromParityTraces([
      { type: "call", traceAddress: [], action: { from: tx.from, to: tx.to, value: "0x0", callType: "call" } },
      { type: "call", traceAddress: [0], error: "Reverted", action: { from: tx.to, to: ONEINCH_V5, value: "0x1", callType: "call" } },
      { type: "call", traceAddress: [0, 0], action: { from: ONEINCH_V5, to: tx.from, value: "0x1", callType: "call" } },
      { type: "call", traceAddress: [1], action: { from: tx.to, to: tx.from, value: `0x${paid.toString(16)}`, callType: "call" } }
    ])
    expect(parity).toEqual([{ from: tx.to, to: tx.from, value: paid }])
    const traced = decodeTransaction({ tx, logs: logsOf(tx.hash), internal }, ctxFor(tx.from))
    expect(traced[0]).toMatchObject({ category: "dex_buy", token: WETH, amount: "0.108949043932854608", ethVia: "trace" })
  })

  it("reads traces through RpcSource when the node offers them (CHAIN_TRACES=auto), and falls back when it does not", async () => {
    const tx = txs.find((t) => t.hash === AGGREGATED)!
    const paid = 108949043932854608n
    const trace = { type: "CALL", from: tx.from, to: tx.to, value: "0x0", calls: [{ type: "CALL", from: tx.to, to: tx.from, value: `0x${paid.toString(16)}` }] }
    const server = await startRpcReplay()
    try {
      const base = labelLookup(ref.labels)
      const unlabelled = (a: string) => (a === ONEINCH_V5 ? undefined : base(a))
      const run = () => Effect.runPromise(Effect.scoped(Effect.gen(function* () {
        const source = yield* makeRpcSource({ url: server.url, traces: "auto" })
        const tokens = new TokenCache(ref.tokens.values())
        const ingested = yield* ingestBlock(source, tx.blockNumber, { wallets: new Set([tx.from]), labels: unlabelled, tokens, prices: new PriceBook(tokens.lookup) })
        return ingested.records.filter((r) => r.txHash === AGGREGATED)
      })))
      // No traces on the node: the unaccounted Withdrawal is the sender's, and the record says it was inferred.
      expect((await run())[0]).toMatchObject({ token: WETH, amount: "0.108949043932854608", ethVia: "inferred" })
      server.setTraces([[AGGREGATED, trace]])
      expect((await run())[0]).toMatchObject({ token: WETH, amount: "0.108949043932854608", ethVia: "trace" })
      expect(server.calls.get("debug_traceTransaction")).toBeGreaterThanOrEqual(2)
    } finally {
      await server.close()
    }
  })
})
