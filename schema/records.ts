/**
 * The whale record: one wallet's net movement of one token in one transaction, as whale_tx stores it and as it
 * leaves the chain domain. Every shape a record takes derives from `WhaleTx`: the `chain.tx` message and its
 * retraction (streams.ts), the feed trade (ws.ts), the HTTP `WhaleTrade` (http/analytics.ts); the database row types
 * (`StoredTx` in chain, `TxRow` in analytics) are typed against it. `recordId` is the one name of a record.
 */
import { z } from "zod"

/**
 * `exchange_housekeeping` (issue 28 part 3): a transfer between two wallets of exchanges — hot ↔ cold or a deposit
 * address swept into its exchange (`venue` = the exchange), or from one exchange to another (`venue` = "A → B").
 * Recorded, listed only when asked for (`category=exchange_housekeeping`), never counted as inflow or outflow.
 */
export const WhaleCategory = z.enum(["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw", "exchange_housekeeping"])
export type WhaleCategory = z.infer<typeof WhaleCategory>

/** The categories that are flows (everything but `exchange_housekeeping`): what figures, alerts and picks count. */
export const FlowCategory = WhaleCategory.exclude(["exchange_housekeeping"])
export type FlowCategory = z.infer<typeof FlowCategory>
export const isFlowCategory = (c: WhaleCategory): c is FlowCategory => c !== "exchange_housekeeping"

/** Who stored the record: the listener (`rpc`), a replay, the demo chain, or a custom wallet's dispatch (`internal`). */
export const RecordSource = z.enum(["rpc", "replay", "demo", "internal"])
export type RecordSource = z.infer<typeof RecordSource>

/** A whale record (numbers as JSON numbers, exact amounts as decimal strings, times as ISO 8601). */
export const WhaleTx = z.object({
  /** whale_tx's id. */
  id: z.number().int(),
  tx_hash: z.string(),
  /** Lowest log index of the wallet's movements of `token` in the transaction; -1 when only native ETH moved. */
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
  /** The other side of a swap (WETH or a stablecoin); null for exchange flows. */
  counter_token: z.string().nullable(),
  counter_symbol: z.string().nullable(),
  venue: z.string().nullable(),
  source: RecordSource
})
export type WhaleTx = z.infer<typeof WhaleTx>

/** What names a record: whale_tx's unique key `(tx_hash, log_index, wallet, token)`. */
export type RecordKey = Pick<WhaleTx, "tx_hash" | "log_index" | "wallet" | "token">

/**
 * The stable id of a record, `<tx_hash>:<log_index>:<wallet>:<token>`: the `chain.tx` messageId, and the base of
 * every key derived from a record. Keys already stored keep their own documented form:
 *  - alerts: `tx:<recordId>` (alert_deliveries.record_key), `conv:tx:<recordId>`, custom wallets' `internal:tx:<recordId>`;
 *  - chain: a retraction's messageId `retraction:<recordId>@<orphaned block hash>`;
 *  - picks: `<tx_hash>:<log_index>:<wallet>` (pick_records' key, stored in picks.flag_record and pick exits).
 */
export const recordId = (r: RecordKey): string => `${r.tx_hash}:${r.log_index}:${r.wallet}:${r.token}`

/** `counter_token` → `counterToken`, at the type level. */
export type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S
/** A zod shape with its keys camel-cased (the chain domain's record names its fields in camelCase). */
export type CamelShape<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] }
const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
export const camelShape = <T extends z.ZodRawShape>(shape: T): CamelShape<T> =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [camel(k), v])) as CamelShape<T>

/**
 * The fields of `WhaleTx` that a record gets when it is stored or published, not when it is decoded from a block:
 * the chain domain's `WhaleRecord` (server/domains/chain/Types.ts) has every other field of `WhaleTx`, camel-cased.
 */
export const STORED_ONLY = { id: true, wallet_label: true, source: true } as const
