/**
 * Chain ingestion types: reference data (tokens, labels, tracked wallets), what a chain source hands over (blocks,
 * transactions, logs) and the normalized record a tracked wallet's transaction becomes.
 *
 * Addresses are always lower-case hex. Amounts on chain are bigint; amounts in records are exact decimal strings.
 */
import { z } from "zod"
import { camelShape, STORED_ONLY, WhaleCategory, WhaleTx } from "../../../schema/records"

export const Address = z.string().regex(/^0x[0-9a-f]{40}$/, "lower-case 0x-prefixed 20-byte address")
export type Address = z.infer<typeof Address>

export const Hash = z.string().regex(/^0x[0-9a-f]{64}$/, "lower-case 0x-prefixed 32-byte hash")
export type Hash = z.infer<typeof Hash>

const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/)

// ---------------------------------------------------------------------------------------------------------------
// Reference data (data/*.json)

export const TokenInfo = z.object({
  address: Address,
  symbol: z.string().min(1),
  decimals: z.number().int().min(0).max(255),
  /** Pegged to one US dollar: priced at $1, a swap's "quote" side, excluded from top tokens. */
  stable: z.boolean(),
  /** WETH and liquid-staking tokens (stETH, wstETH, rETH, cbETH…). */
  eth_derivative: z.boolean(),
  /** Never recorded (spam, honeypots, broken tokens). */
  blacklisted: z.boolean()
})
export type TokenInfo = z.infer<typeof TokenInfo>

/** What decoding needs to know about a token; `decimals: null` when the contract would not tell. */
export interface ResolvedToken {
  readonly address: Address
  readonly symbol: string
  readonly decimals: number | null
  readonly stable: boolean
  readonly eth_derivative: boolean
  readonly blacklisted: boolean
}

export const Label = z.discriminatedUnion("category", [
  z.object({ address: Address, name: z.string().min(1), category: z.literal("exchange"), exchange: z.string().min(1) }),
  z.object({ address: Address, name: z.string().min(1), category: z.literal("router"), venue: z.string().min(1) })
])
export type Label = z.infer<typeof Label>

export const Cohort = z.enum(["mega", "large", "mid"])
export type Cohort = z.infer<typeof Cohort>

export const TrackedWallet = z.object({
  address: Address,
  label: z.string().min(1),
  /** mega ≥ $100M, large $10–100M, mid $1–10M (seed estimate until balances are measured). */
  cohort: Cohort,
  source: z.enum(["seed", "discovered", "custom"])
})
export type TrackedWallet = z.infer<typeof TrackedWallet>

export type WalletSource = "seed" | "import" | "custom" | "discovered" | "demo"

/** A tracked_wallets row: the one wallet row; other domains' wallet reads are typed against it. */
export interface WalletRow {
  readonly address: string
  readonly label: string
  readonly cohort: Cohort | "small"
  readonly source: WalletSource
  readonly active: boolean
}

// ---------------------------------------------------------------------------------------------------------------
// What chain sources return

export const RawTx = z.object({
  hash: Hash,
  blockNumber: z.number().int().nonnegative(),
  blockHash: Hash,
  /** Block time, unix seconds. */
  timestamp: z.number().int().nonnegative(),
  from: Address,
  /** null for contract creation. */
  to: Address.nullable(),
  value: z.bigint().nonnegative(),
  /** First four bytes of the call data (`0x` for a plain transfer). */
  input: Hex,
  transactionIndex: z.number().int().nonnegative(),
  /** Known when the source has receipts (replay, demo, a fetched receipt); undefined from a bare block. */
  status: z.enum(["success", "reverted"]).optional()
})
export type RawTx = z.infer<typeof RawTx>

export const RawLog = z.object({
  address: Address,
  topics: z.array(Hex),
  data: Hex,
  logIndex: z.number().int().nonnegative(),
  transactionHash: Hash,
  blockNumber: z.number().int().nonnegative(),
  blockHash: Hash
})
export type RawLog = z.infer<typeof RawLog>

export const ChainBlock = z.object({
  number: z.number().int().nonnegative(),
  hash: Hash,
  parentHash: Hash,
  timestamp: z.number().int().nonnegative(),
  transactions: z.array(RawTx)
})
export type ChainBlock = z.infer<typeof ChainBlock>

/** A native ETH movement inside a transaction (from call traces), when the source can provide them. */
export interface InternalTransfer {
  readonly from: Address
  readonly to: Address
  readonly value: bigint
}

// ---------------------------------------------------------------------------------------------------------------
// The normalized record

/** The record's category, defined once with the record's wire shape (schema/records.ts). */
export { WhaleCategory }

const DecimalString = z.string().regex(/^\d+(\.\d+)?$/)

/**
 * A record as the chain domain decodes it from a block, before it is stored: every field of `WhaleTx`
 * (schema/records.ts) but those storing adds (`STORED_ONLY`: id, wallet_label, source), camel-cased — a field added
 * to `WhaleTx` reaches it — with the decoder's stricter checks (hashes, addresses, exact decimals, `ts` a Date) and
 * what only decoding knows (the block hash, decimals, the raw and counter amounts, how native ETH was derived).
 */
export const WhaleRecord = z.object(camelShape(WhaleTx.omit(STORED_ONLY).shape)).extend({
  txHash: Hash,
  /** Lowest log index of the wallet's movements of `token` in the transaction; -1 when only native ETH moved. */
  logIndex: z.number().int().min(-1),
  block: z.number().int().nonnegative(),
  blockHash: Hash,
  /** Block time. Accepts an ISO string when parsing wire payloads. */
  ts: z.coerce.date(),
  wallet: Address,
  /** The token bought, sold, deposited or withdrawn; native ETH is recorded as WETH. */
  token: Address,
  decimals: z.number().int().nullable(),
  /** |net movement| in token units, exact; the raw integer when `decimals` is unknown. */
  amount: DecimalString,
  amountRaw: z.string().regex(/^\d+$/),
  counterToken: Address.nullable(),
  /** |net movement| of the counter token, exact, like `amount`. */
  counterAmount: DecimalString.nullable(),
  /**
   * How the native-ETH amount of the record (its WETH side) was derived: `value` (the transaction's value), `trace`
   * (internal transfers from call traces), `withdrawal` (a known router's WETH Withdrawal), `inferred` (another
   * contract's Withdrawal taken as the sender's proceeds); null when no native ETH moved.
   */
  ethVia: z.enum(["value", "trace", "withdrawal", "inferred"]).nullable().optional()
})
export type WhaleRecord = z.infer<typeof WhaleRecord>
