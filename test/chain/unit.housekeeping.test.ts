/**
 * Issue 28 part 3: exchange housekeeping is no flow. Decoding a tracked wallet that is itself an exchange wallet
 * (a seed list naming a hot wallet, a deposit address the identity engine found) records its transfers to and from
 * wallets of exchanges as `exchange_housekeeping`; only movements between an exchange and a non-exchange address are
 * `exchange_deposit` / `exchange_withdraw`. Real mainnet label addresses (data/labels.json), synthetic logs.
 */
import { describe, expect, it } from "vitest"
import { decodeTransaction, exchangeOfAddress, TOPIC_TRANSFER, type DecodeContext } from "../../server/domains/chain/Decode"
import { labelLookup, loadReference, tokenLookup } from "../../server/domains/chain/Reference"
import type { RawLog, RawTx } from "../../server/domains/chain/Types"
import { isFlowCategory, WhaleCategory } from "../../schema/records"

const ref = loadReference()
const BINANCE_14 = "0x28c6c06298d514db089934071355e5743bf21d60" // hot
const BINANCE_8 = "0xf977814e90da44bfa03b6295a0616a897441acec" // cold
const COINBASE_1 = "0x71660c4005ba85c37ccec55d0c4493e66fe775d3"
const V2_ROUTER = "0x7a250d5630b4cf539739df2c5dacb4c659f2488d"
const JUMP = "0xf584f8728b874a6a5c7a8d4d387c9aae9172d621"
/** A Binance deposit address: not labelled, found by the identity engine's sweep rule. */
const DEPOSIT = "0x3c5a0a4e9f1b2d8c7e6f5a4b3c2d1e0f9a8b7c6d"
const USDT = "0xdac17f958d2ee523a2206206994597c13d831ec7"
const TX = `0x${"ab".repeat(32)}`
const BLOCK_HASH = `0x${"cd".repeat(32)}`

const topic = (a: string) => `0x${a.slice(2).padStart(64, "0")}`
const word = (v: bigint) => `0x${v.toString(16).padStart(64, "0")}`
const transfer = (i: number, from: string, to: string, v: bigint): RawLog =>
  ({ address: USDT, topics: [TOPIC_TRANSFER, topic(from), topic(to)], data: word(v), logIndex: i, transactionHash: TX, blockNumber: 100, blockHash: BLOCK_HASH })
const tx = (from: string): RawTx => ({
  hash: TX, blockNumber: 100, blockHash: BLOCK_HASH, timestamp: 1_700_000_000, from, to: USDT, value: 0n, input: "0x", transactionIndex: 3, status: "success"
})
const found = new Map([[DEPOSIT, "Binance"], [V2_ROUTER, "Binance"]])
const ctx = (tracked: ReadonlyArray<string>, identity = true): DecodeContext => ({
  wallets: new Set(tracked), tokens: tokenLookup(ref.tokens), labels: labelLookup(ref.labels),
  ...(identity ? { exchangeOf: (a: string) => found.get(a) } : {})
})
const decode = (tracked: ReadonlyArray<string>, from: string, to: string, identity = true) =>
  decodeTransaction({ tx: tx(from), logs: [transfer(4, from, to, 2_500_000_000_000n)] }, ctx(tracked, identity))
    .map((r) => ({ wallet: r.wallet, category: r.category, venue: r.venue, amount: r.amount }))

describe("exchange housekeeping (issue 28 part 3)", () => {
  it("hot → cold of the same exchange is housekeeping on both sides, never a deposit or a withdrawal", () => {
    expect(decode([BINANCE_14, BINANCE_8], BINANCE_14, BINANCE_8)).toEqual([
      { wallet: BINANCE_14, category: "exchange_housekeeping", venue: "Binance", amount: "2500000" },
      { wallet: BINANCE_8, category: "exchange_housekeeping", venue: "Binance", amount: "2500000" }
    ])
  })

  it("a deposit address swept into its exchange is housekeeping (the address known from the identity engine)", () => {
    expect(decode([DEPOSIT, BINANCE_14], DEPOSIT, BINANCE_14)).toEqual([
      { wallet: BINANCE_14, category: "exchange_housekeeping", venue: "Binance", amount: "2500000" },
      { wallet: DEPOSIT, category: "exchange_housekeeping", venue: "Binance", amount: "2500000" }
    ])
  })

  it("a user paying an exchange is a deposit, also into a deposit address; the exchange's own side is not a flow", () => {
    expect(decode([JUMP], JUMP, BINANCE_14)).toEqual([{ wallet: JUMP, category: "exchange_deposit", venue: "Binance", amount: "2500000" }])
    expect(decode([JUMP], JUMP, DEPOSIT)).toEqual([{ wallet: JUMP, category: "exchange_deposit", venue: "Binance", amount: "2500000" }])
    expect(decode([JUMP], BINANCE_14, JUMP)).toEqual([{ wallet: JUMP, category: "exchange_withdraw", venue: "Binance", amount: "2500000" }])
    // A tracked hot wallet paying a user: its counterparty is no exchange, so it records nothing (no flow of its own).
    expect(decode([BINANCE_14], BINANCE_14, JUMP)).toEqual([])
  })

  it("exchange A → exchange B is housekeeping too, named 'A → B' from either side", () => {
    expect(decode([BINANCE_14, COINBASE_1], BINANCE_14, COINBASE_1)).toEqual([
      { wallet: BINANCE_14, category: "exchange_housekeeping", venue: "Binance → Coinbase", amount: "2500000" },
      { wallet: COINBASE_1, category: "exchange_housekeeping", venue: "Binance → Coinbase", amount: "2500000" }
    ])
  })

  it("without the identity engine a deposit address is unknown: nothing is recorded (as before)", () => {
    expect(decode([JUMP], JUMP, DEPOSIT, false)).toEqual([])
    expect(decode([DEPOSIT], DEPOSIT, BINANCE_14, false)).toEqual([
      { wallet: DEPOSIT, category: "exchange_deposit", venue: "Binance", amount: "2500000" }
    ])
  })

  it("labels win over the identity engine: a labelled router is never an exchange wallet", () => {
    const c = ctx([])
    expect(exchangeOfAddress(c, V2_ROUTER)).toBeUndefined()
    expect(exchangeOfAddress(c, BINANCE_8)).toBe("Binance")
    expect(exchangeOfAddress(c, DEPOSIT)).toBe("Binance")
  })

  it("housekeeping is the one category that is no flow", () => {
    expect(WhaleCategory.options.filter((c) => !isFlowCategory(c))).toEqual(["exchange_housekeeping"])
  })
})
