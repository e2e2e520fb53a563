/**
 * The pages of the data API's bulk export (server/gateways/dataapi/Export.ts), as the records it writes: whale
 * transactions from..to after an id (oldest first, the rows `/api/v1/transactions` lists), and daily flows per token
 * after a (day, token) cursor, from the daily roll-up.
 */
import { Effect } from "effect"
import { cents, centsOrNull, priceOrNull } from "../../../schema/numbers"
import { HistoryRepo, type FlowExportRow } from "./HistoryRepo"
import { displaySymbol } from "./Tokens"
import type { TxRow } from "./TxRepo"

export const txRecord = (r: TxRow) => ({
  id: r.id, tx_hash: r.tx_hash, block: r.block, ts: r.ts.toISOString(), wallet: r.wallet, wallet_label: r.wallet_label, token: r.token,
  symbol: r.symbol, category: r.category, amount: r.amount, usd: centsOrNull(r.usd), price_usd: priceOrNull(r.price_usd),
  counter_symbol: r.counter_symbol, venue: r.venue, source: r.source === "internal" ? "rpc" : r.source
})

const flowRecord = (r: FlowExportRow) => ({
  cursor: `${r.day}:${r.token}`, day: r.day, token: r.token, symbol: displaySymbol(r.token, r.symbol), dex_buy_usd: cents(r.dex_buy_usd),
  dex_sell_usd: cents(r.dex_sell_usd), exchange_withdraw_usd: cents(r.exchange_withdraw_usd), exchange_deposit_usd: cents(r.exchange_deposit_usd),
  net_flow_usd: cents(r.dex_buy_usd - r.dex_sell_usd + r.exchange_withdraw_usd - r.exchange_deposit_usd), trades: r.trades, whales: r.whales
})

export type TxRecord = ReturnType<typeof txRecord>

/** Ids per window of the transaction export's reads. */
const WINDOW = 20_000
export type FlowRecord = ReturnType<typeof flowRecord>

export class ExportPages extends Effect.Service<ExportPages>()("app/analytics/ExportPages", {
  dependencies: [HistoryRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* HistoryRepo
    return {
      /** Up to `limit` records after `afterId`, read in id windows of WINDOW ids; fewer only at the end of the table. */
      transactions: (from: number, to: number, afterId: number, limit: number) =>
        Effect.gen(function* () {
          const maxId = yield* repo.maxTxId
          const out: Array<TxRecord> = []
          let after = afterId
          while (out.length < limit && after < maxId) {
            const upTo = Math.min(maxId, after + Math.max(WINDOW, (limit - out.length) * 2))
            const rows = yield* repo.txAfter(new Date(from), new Date(to), after, upTo, limit - out.length)
            for (const r of rows) out.push(txRecord(r))
            after = out.length >= limit ? rows[rows.length - 1]!.id : upTo
          }
          return out
        }),
      tokenFlows: (fromDay: string, toDay: string, after: { day: string; token: string } | null, tokens: ReadonlyArray<string> | null, limit: number) =>
        Effect.map(repo.flowsAfter(fromDay, toDay, after, tokens, limit), (rows) => rows.map(flowRecord))
    } as const
  })
}) {}
