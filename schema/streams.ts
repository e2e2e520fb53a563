/**
 * Messages on the bus. Every message carries a `messageId`; consumers are idempotent on it.
 *  - `chain.tx`: one normalized whale transaction record as stored (the block listener, `process-tx`,
 *    `custom-wallet-tx` and `dispatch` publish here).
 */
import { z } from "zod"

export const STREAMS = {
  chainTx: "chain.tx",
  notify: "notify",
  apiUsage: "api.usage",
  echoCmd: "echo.cmd"
} as const

export const WhaleCategory = z.enum(["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"])
export type WhaleCategory = z.infer<typeof WhaleCategory>

/** A whale transaction record on `chain.tx` (numbers as JSON numbers, exact amounts as decimal strings). */
export const ChainTxMessage = z.object({
  messageId: z.string(),
  id: z.number().int().nullable(),
  tx_hash: z.string(),
  log_index: z.number().int(),
  block: z.number().int(),
  ts: z.string(),
  wallet: z.string(),
  wallet_label: z.string().nullable(),
  token: z.string(),
  symbol: z.string(),
  category: WhaleCategory,
  amount: z.string(),
  usd: z.number().nullable(),
  price_usd: z.number().nullable(),
  counter_token: z.string().nullable(),
  counter_symbol: z.string().nullable(),
  venue: z.string().nullable(),
  source: z.enum(["rpc", "replay", "demo", "internal"])
})
export type ChainTxMessage = z.infer<typeof ChainTxMessage>
