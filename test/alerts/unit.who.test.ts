/**
 * Issue 28 part 5: an alert on a wallet says who it is and why — its class, its label with the label's source, the
 * strongest reason (Format.ts, from the identity engine's stored identity) — and no alert fires on exchange
 * housekeeping (MatchIndex.ts).
 */
import { describe, expect, it } from "vitest"
import type { AlertSpec } from "../../schema/http/alerts"
import { contentOfRecord, type RecordFacts, type WalletWho } from "../../server/domains/alerts/Format"
import { matchesRecord } from "../../server/domains/alerts/matching/MatchIndex"

const WALLET = "0x28c6c06298d514db089934071355e5743bf21d60"
const record: RecordFacts = {
  tx_hash: `0x${"ab".repeat(32)}`, log_index: 4, block: 17173049, ts: "2023-05-01T00:00:00.000Z", wallet: WALLET, wallet_label: null,
  token: "0xdac17f958d2ee523a2206206994597c13d831ec7", symbol: "USDT", category: "exchange_deposit", amount: "2500000", usd: 2_500_000,
  venue: "Binance", source: "rpc"
}
const whale: WalletWho = {
  class: "whale", class_source: "seed", label: "Alpha Whale", label_source: "seed", exchange: null, reason: "tracked wallet (seed): Alpha Whale"
}
const bot: WalletWho = {
  class: "mev_bot", class_source: "rule", label: null, label_source: null, exchange: null,
  reason: "sandwich: front-ran and back-ran another account's swap in pool 0x88e6…5640 (tx 0x12ab…)."
}

describe("alerts say who the wallet is and why", () => {
  it("names the class, the label with its source and the reason, in the summary and in the data", () => {
    const c = contentOfRecord("wallet_activity", record, whale)
    expect(c.title).toBe("Wallet activity: Alpha Whale")
    expect(c.summary).toBe(
      'Alpha Whale deposited $2.50M of USDT to Binance (block 17173049) Who: whale, by seed list; label "Alpha Whale" from seed list. tracked wallet (seed): Alpha Whale.'
    )
    expect(c.data.identity).toEqual(whale)
  })

  it("says a bot is a bot, found by a behaviour rule, with the rule's evidence", () => {
    const c = contentOfRecord("wallet_activity", { ...record, category: "dex_buy", venue: "Uniswap V3" }, bot)
    expect(c.summary).toContain("Who: mev bot, by behaviour rule. sandwich: front-ran and back-ran")
    expect(c.summary).not.toContain("..")
  })

  it("without a stored identity the alert reads as before", () => {
    const c = contentOfRecord("exchange_flow", record)
    expect(c.summary).toBe("0x28c6…1d60 deposited $2.50M of USDT to Binance (block 17173049)")
    expect(c.data).not.toHaveProperty("identity")
  })

  it("exchange housekeeping fires no alert, not even an alert on any activity of the wallet", () => {
    const any: AlertSpec = { type: "wallet_activity", params: { wallet: WALLET, min_usd: 0, categories: null } } as AlertSpec
    expect(matchesRecord(any, { ...record, category: "exchange_deposit" })).toBe(true)
    expect(matchesRecord(any, { ...record, category: "exchange_housekeeping" })).toBe(false)
  })
})
