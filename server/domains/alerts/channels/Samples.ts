/** Sample notifications of each alert type (`POST /api/alerts/test`, `/test-type`): realistic, labelled as tests. */
import type { AlertType } from "../../../../schema/http/alerts"
import { contentOfConvergence, contentOfIndexCross, contentOfPick, contentOfPlaybook, contentOfRecord, type Content, type RecordFacts } from "../Format"

const SAMPLE_RECORD: RecordFacts = {
  tx_hash: "0x" + "5a".repeat(32), log_index: 12, block: 19_537_146, ts: "2024-03-29T12:00:11Z",
  wallet: "0x00000000219ab540356cbb839cbe05303d7705fa", wallet_label: "Sample whale", token: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
  symbol: "WETH", category: "dex_buy", amount: "420.5", usd: 1_482_000, venue: "Uniswap V3",
  // A made-up transaction: like the demo chain's, it has no explorer page.
  source: "demo"
}

export const sampleContent = (type: AlertType): Content => {
  const c = ((): Content => {
    switch (type) {
      case "whale_trade":
      case "wallet_activity":
        return contentOfRecord(type, SAMPLE_RECORD)
      case "exchange_flow":
        return contentOfRecord("exchange_flow", { ...SAMPLE_RECORD, category: "exchange_deposit", venue: "Binance", symbol: "USDC", usd: 5_000_000 })
      case "convergence":
        return contentOfConvergence(SAMPLE_RECORD, { wallets: ["0x1", "0x2", "0x3"], totalUsd: 3_250_000, windowMinutes: 60, labels: ["Sample whale", "Fund A", "0x71c7…976f"] })
      case "index_cross":
        return contentOfIndexCross({ value: 71.4, previous: 68.2, at: new Date().toISOString() }, 70)
      case "playbook_live":
        return contentOfPlaybook({ event_id: 0, title: "Sample: FOMC rate decision", category: "macro", severity: 5, at: new Date().toISOString() })
      case "pick_flagged":
        return contentOfPick({ pick_id: 0, token: "0x6982508145454ce325ddbe47a25d4ec3d2311933", symbol: "PEPE", whales: 4, conviction: 82, entry_price: 0.0000071, flagged_at: new Date().toISOString() })
    }
  })()
  return { ...c, title: `Test: ${c.title}`, data: { ...c.data, test: true } }
}
