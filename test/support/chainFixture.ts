/**
 * Mainnet blocks 17173049–17173050 (shared fixtures) as chain tests use them: the wallets to track (every sender
 * of a Uniswap V2/V3 swap, and three wallets with real exchange flows), independent expectations from the
 * fixture's own decoded ERC-20 transfers, and a reference run of the decoding pipeline over the JSON-RPC replay.
 */
import { Effect } from "effect"
import { EtlLog, EtlTransaction, readJsonLines } from "../../server/domains/chain/Etl"
import { ingestBlock, TokenCache } from "../../server/domains/chain/Ingest"
import { PriceBook } from "../../server/domains/chain/PriceBook"
import { labelLookup, loadReference } from "../../server/domains/chain/Reference"
import { makeRpcSource } from "../../server/domains/chain/RpcSource"
import type { WhaleRecord } from "../../server/domains/chain/Types"
import { z } from "zod"
import { fixturePath, requireFixtures } from "./fixtures"

export const SET = "eth-mainnet/blocks_17173049_17173050"
export const BLOCKS = [17173049, 17173050] as const

/** requireFixtures for the chain tests (fails under CI when missing, skips with the reason otherwise). */
export const chainFixtures = () => requireFixtures(SET, "token-list/optimism.tokenlist.json")

const SWAP_TOPICS = new Set([
  "0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822", // Uniswap V2 Swap
  "0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67" // Uniswap V3 Swap
])
/** Real exchange flows in these blocks: DAI from Binance 15, USDT to Coinbase 10, ETH from Crypto.com 2. */
export const EXCHANGE_WALLETS = [
  "0xbc3f02cb4b61a587a9b6d36030b1d5f509d90b26",
  "0x2ff7c94e9ae94b00454f356ce171ae5597f7e9fb",
  "0xaa5b4912762581d4bc519bba2c694a9f5ab7fe23"
] as const

const Transfer = z.object({
  token_address: z.string(), from_address: z.string(), to_address: z.string(), transaction_hash: z.string(),
  value: z.union([z.number(), z.string()]).transform((v) => BigInt(v))
})

export interface ChainFixture {
  readonly transactions: ReadonlyArray<EtlTransaction>
  readonly blockHash: ReadonlyMap<number, string>
  /** Senders of the transactions with a Uniswap Swap log. */
  readonly swapSenders: ReadonlySet<string>
  /** The wallets the tests track: swap senders and the exchange-flow wallets. */
  readonly wallets: ReadonlyArray<string>
  /** Net ERC-20 movement of `wallet` per token in `tx`, from expected_token_transfers.json. */
  readonly netOf: (tx: string, wallet: string) => Map<string, bigint>
}

export const loadChainFixture = (): ChainFixture => {
  const file = (name: string) => fixturePath(SET, name)
  const transactions = readJsonLines(file("expected_transactions.json"), EtlTransaction)
  const logs = readJsonLines(file("expected_logs.json"), EtlLog)
  const transfers = readJsonLines(file("expected_token_transfers.json"), Transfer)
  const from = new Map(transactions.map((t) => [t.hash, t.from_address]))
  const swapSenders = new Set(logs.filter((l) => SWAP_TOPICS.has(l.topics[0] ?? "")).map((l) => from.get(l.transaction_hash)!))
  const blockHash = new Map(transactions.map((t) => [t.block_number, t.block_hash]))
  return {
    transactions, blockHash, swapSenders,
    wallets: [...new Set([...swapSenders, ...EXCHANGE_WALLETS])].sort(),
    netOf: (tx, wallet) => {
      const net = new Map<string, bigint>()
      for (const t of transfers.filter((x) => x.transaction_hash === tx)) {
        if (t.from_address === wallet) net.set(t.token_address, (net.get(t.token_address) ?? 0n) - t.value)
        if (t.to_address === wallet) net.set(t.token_address, (net.get(t.token_address) ?? 0n) + t.value)
      }
      return new Map([...net].filter(([, v]) => v !== 0n))
    }
  }
}

/**
 * What a fresh listener (seed tokens and labels, seed wallets plus `wallets`) should derive from the two blocks:
 * the decoding pipeline run directly over the JSON-RPC replay at `url`.
 */
export const referenceRecords = (url: string, wallets: ReadonlyArray<string>): Promise<Array<WhaleRecord>> => {
  const ref = loadReference()
  const tokens = new TokenCache(ref.tokens.values())
  const ctx = {
    wallets: new Set([...ref.wallets.map((w) => w.address), ...wallets]),
    labels: labelLookup(ref.labels), tokens, prices: new PriceBook(tokens.lookup)
  }
  return Effect.runPromise(Effect.scoped(Effect.flatMap(makeRpcSource({ url }), (source) =>
    Effect.forEach(BLOCKS, (n) => ingestBlock(source, n, ctx)).pipe(Effect.map((bs) => bs.flatMap((b) => b.records)))
  )))
}

/** The unique key of a record, as whale_tx and chain.tx name it. */
export const keyOf = (r: { tx_hash: string; log_index: number; wallet: string; token: string }) =>
  `${r.tx_hash}:${r.log_index}:${r.wallet}:${r.token}`
