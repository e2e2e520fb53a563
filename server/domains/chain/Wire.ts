/**
 * The shapes a record leaves the chain domain in: the `chain.tx` message (from the stored row) and the backfill's
 * JSON line (from the normalized record).
 */
import { recordId } from "../../../schema/records"
import type { ChainTxMessage, ChainTxRetraction } from "../../../schema/streams"
import type { StoredTx } from "./Repo"
import type { WhaleRecord } from "./Types"

export const toChainTxMessage = (row: StoredTx, walletLabel: string | null): ChainTxMessage => ({
  messageId: recordId(row),
  id: row.id,
  tx_hash: row.tx_hash,
  log_index: row.log_index,
  block: row.block_number,
  ts: row.ts.toISOString(),
  wallet: row.wallet,
  wallet_label: walletLabel,
  token: row.token,
  symbol: row.symbol,
  category: row.category,
  amount: row.amount,
  usd: row.usd,
  price_usd: row.price_usd,
  counter_token: row.counter_token,
  counter_symbol: row.counter_symbol,
  venue: row.venue,
  source: row.source
})

/**
 * The retraction of a published record whose block a reorg orphaned. Its messageId names the record and the
 * orphaned block, so a redelivery is the same message and a record retracted from two blocks gets two.
 */
export const toRetraction = (row: StoredTx & { readonly block_hash: string }): ChainTxRetraction => ({
  messageId: `retraction:${recordId(row)}@${row.block_hash}`,
  kind: "retraction",
  id: row.id,
  tx_hash: row.tx_hash,
  log_index: row.log_index,
  block: row.block_number,
  wallet: row.wallet,
  token: row.token,
  category: row.category,
  usd: row.usd,
  reason: "reorg"
})

/**
 * USD to the cent exactly as whale_tx stores it: PostgreSQL rounds the number's decimal text half away from zero
 * (so 1234.565 is 1234.57, where binary rounding would give 1234.56).
 */
export const cents = (usd: number | null): number | null => {
  if (usd === null || !Number.isFinite(usd)) return usd
  const text = String(Math.abs(usd))
  if (/e/i.test(text)) return Math.round(usd * 100) / 100
  const [whole, fraction = ""] = text.split(".")
  if (fraction.length <= 2) return usd
  const truncated = Number(`${whole}.${fraction.slice(0, 2)}`)
  const rounded = fraction[2]! >= "5" ? Number((truncated + 0.01).toFixed(2)) : truncated
  return usd < 0 ? -rounded : rounded
}

export interface RecordLine {
  readonly tx_hash: string
  readonly block: number
  readonly ts: string
  readonly wallet: string
  readonly token: string
  readonly symbol: string
  readonly category: WhaleRecord["category"]
  readonly amount: string
  readonly usd: number | null
  readonly price_usd: number | null
  readonly counter_token: string | null
  readonly venue: string | null
}

/** One line of `npm run backfill -- --json`. */
export const toRecordLine = (r: WhaleRecord): RecordLine => ({
  tx_hash: r.txHash,
  block: r.block,
  ts: r.ts.toISOString(),
  wallet: r.wallet,
  token: r.token.toLowerCase(),
  symbol: r.symbol,
  category: r.category,
  amount: r.amount,
  usd: cents(r.usd),
  price_usd: r.priceUsd,
  counter_token: r.counterToken,
  venue: r.venue
})
