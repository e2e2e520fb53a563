/**
 * One trade shape (schema/records.ts): the shapes a whale record takes on the bus, the feed and over HTTP keep their
 * fields and nullability, and the keys derived from a record keep the forms already stored in the database.
 */
import { describe, expect, it } from "vitest"
import { WhaleTrade } from "../../schema/http/analytics"
import { camelShape, recordId, STORED_ONLY, WhaleTx } from "../../schema/records"
import { ChainStreamMessage, ChainTxMessage, ChainTxRetraction, isRetraction } from "../../schema/streams"
import { FeedRetraction, FeedTrade } from "../../schema/ws"
import { recordKeyOf } from "../../server/domains/alerts/delivery/Rows"
import type { StoredTx } from "../../server/domains/chain/Repo"
import { WhaleRecord } from "../../server/domains/chain/Types"
import { toChainTxMessage, toRetraction } from "../../server/domains/chain/Wire"
import { recordKey } from "../../server/domains/picks/Repo"

const HASH = `0x${"ab".repeat(32)}`
const WALLET = `0x${"11".repeat(20)}`
const TOKEN = `0x${"22".repeat(20)}`

const row: StoredTx = {
  id: 7, tx_hash: HASH, log_index: 3, block_number: 19_000_000, ts: new Date("2024-05-01T12:00:00.000Z"), wallet: WALLET,
  token: TOKEN, symbol: "PEPE", category: "dex_buy", amount: "1000.5", usd: 250_000.12, price_usd: 0.0000123,
  counter_token: null, counter_symbol: "WETH", venue: "Uniswap V3", source: "rpc"
}

describe("record keys", () => {
  it("name a record by whale_tx's unique key, each stored form unchanged", () => {
    const key = { tx_hash: HASH, log_index: 3, wallet: WALLET, token: TOKEN }
    expect(recordId(key)).toBe(`${HASH}:3:${WALLET}:${TOKEN}`)
    // alert_deliveries.record_key and convergence buys
    expect(recordKeyOf(key)).toBe(`tx:${HASH}:3:${WALLET}:${TOKEN}`)
    // picks.flag_record and exits: no token
    expect(recordKey({ txHash: HASH, logIndex: 3, wallet: WALLET })).toBe(`${HASH}:3:${WALLET}`)
  })

  it("are the chain.tx messageIds of a record and of its retraction", () => {
    expect(toChainTxMessage(row, null).messageId).toBe(recordId(row))
    expect(toRetraction({ ...row, block_hash: `0x${"cd".repeat(32)}` }).messageId).toBe(`retraction:${recordId(row)}@0x${"cd".repeat(32)}`)
  })
})

describe("the shapes of a record", () => {
  const keys = (s: { shape: object }) => Object.keys(s.shape).sort()

  it("keep their fields on the bus, the feed and over HTTP", () => {
    const record = ["id", "tx_hash", "log_index", "block", "ts", "wallet", "wallet_label", "token", "symbol", "category", "amount",
      "usd", "price_usd", "counter_token", "counter_symbol", "venue", "source"]
    expect(keys(ChainTxMessage)).toEqual(["messageId", ...record].sort())
    expect(keys(FeedTrade)).toEqual([...record].sort())
    expect(keys(WhaleTrade)).toEqual(record.filter((k) => k !== "log_index" && k !== "counter_token").sort())
    expect(keys(ChainTxRetraction)).toEqual(["messageId", "kind", "id", "tx_hash", "log_index", "block", "wallet", "token", "category", "usd", "reason"].sort())
    expect(keys(FeedRetraction)).toEqual(["kind", "tx_hash", "log_index", "block", "wallet", "token", "reason"].sort())
  })

  it("keep their nullability: a message's id may be null (a custom wallet's record), a listed trade's may not", () => {
    const message = toChainTxMessage(row, "Whale 1")
    expect(ChainTxMessage.parse(message)).toEqual(message)
    expect(ChainTxMessage.safeParse({ ...message, id: null, source: "internal" }).success).toBe(true)
    const { messageId: _m, log_index: _l, counter_token: _c, ...listed } = message
    expect(WhaleTrade.safeParse(listed).success).toBe(true)
    expect(WhaleTrade.safeParse({ ...listed, id: null }).success).toBe(false)
    expect(WhaleTrade.safeParse({ ...listed, wallet_label: null, usd: null, price_usd: null, counter_symbol: null, venue: null }).success).toBe(true)
  })

  it("tell a retraction from a record on chain.tx", () => {
    const retraction = toRetraction({ ...row, block_hash: `0x${"cd".repeat(32)}` })
    expect(isRetraction(ChainStreamMessage.parse(retraction))).toBe(true)
    expect(isRetraction(ChainStreamMessage.parse(toChainTxMessage(row, null)))).toBe(false)
  })
})

describe("the chain domain's record", () => {
  it("has every field of WhaleTx but those storing adds, camel-cased, and the decoder's own", () => {
    const fromWhaleTx = Object.keys(camelShape(WhaleTx.omit(STORED_ONLY).shape))
    expect(fromWhaleTx).toEqual(["txHash", "logIndex", "block", "ts", "wallet", "token", "symbol", "category", "amount", "usd",
      "priceUsd", "counterToken", "counterSymbol", "venue"])
    expect(Object.keys(WhaleRecord.shape).sort()).toEqual([...fromWhaleTx, "blockHash", "decimals", "amountRaw", "counterAmount", "ethVia"].sort())
    // A field WhaleTx gains reaches the record, camel-cased.
    expect(Object.keys(camelShape(WhaleTx.extend({ chain_id: WhaleTx.shape.block }).omit(STORED_ONLY).shape))).toContain("chainId")
  })

  it("keeps the decoder's checks: addresses and hashes, exact amounts, a Date", () => {
    const record = {
      txHash: HASH, logIndex: -1, block: 1, blockHash: HASH, ts: "2024-05-01T12:00:00.000Z", wallet: WALLET, token: TOKEN,
      symbol: "WETH", decimals: 18, category: "exchange_deposit", amount: "1.5", amountRaw: "1500000000000000000", usd: 4500,
      priceUsd: 3000, counterToken: null, counterSymbol: null, counterAmount: null, venue: "Binance", ethVia: "value"
    }
    expect(WhaleRecord.parse(record).ts).toEqual(new Date("2024-05-01T12:00:00.000Z"))
    expect(WhaleRecord.safeParse({ ...record, wallet: `0x${"AB".repeat(20)}` }).success).toBe(false)
    expect(WhaleRecord.safeParse({ ...record, amount: "1e3" }).success).toBe(false)
    expect(WhaleRecord.safeParse({ ...record, logIndex: -2 }).success).toBe(false)
  })
})
