/**
 * ethereum-etl exports (JSON lines: `blocks`, `transactions` with receipt fields, `logs`) → chain types.
 *
 * ethereum-etl writes integers as JSON numbers, many beyond 2^53 (wei values, token amounts), so lines are
 * parsed losslessly: integers of 16 digits or more are read as strings and turned into bigint by the schemas.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { z } from "zod"
import { Address, Hash, type ChainBlock, type RawLog, type RawTx } from "./Types"

const BIG_OR_STRING = /("(?:[^"\\]|\\.)*")|(-?\d{16,})(?![\d.eE])/g

/** JSON.parse that keeps big integers exact (as decimal strings). */
export const parseJsonLossless = (text: string): unknown =>
  JSON.parse(text.replace(BIG_OR_STRING, (_, str: string | undefined, num: string) => str ?? `"${num}"`))

const Big = z.union([z.number().int(), z.string().regex(/^-?\d+$/)]).transform((v) => BigInt(v))
const Int = z.number().int()
const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/)

export const EtlBlock = z.object({
  number: Int, hash: Hash, parent_hash: Hash, nonce: Hex, sha3_uncles: Hash, logs_bloom: Hex,
  transactions_root: Hash, state_root: Hash, receipts_root: Hash, miner: Address,
  difficulty: Big, total_difficulty: Big.nullish(), size: Int, extra_data: Hex, gas_limit: Big, gas_used: Big,
  timestamp: Int, transaction_count: Int, base_fee_per_gas: Big.nullish(), withdrawals_root: Hash.nullish(),
  withdrawals: z.array(z.object({ index: Int, validator_index: Int, address: Address, amount: Big })).nullish(),
  blob_gas_used: Big.nullish(), excess_blob_gas: Big.nullish()
})
export type EtlBlock = z.infer<typeof EtlBlock>

export const EtlTransaction = z.object({
  hash: Hash, nonce: Int, transaction_index: Int, from_address: Address, to_address: Address.nullable(),
  value: Big, gas: Big, gas_price: Big.nullish(), input: Hex, block_timestamp: Int, block_number: Int,
  block_hash: Hash, max_fee_per_gas: Big.nullish(), max_priority_fee_per_gas: Big.nullish(),
  transaction_type: Int.nullish(), max_fee_per_blob_gas: Big.nullish(), blob_versioned_hashes: z.array(Hash).nullish(),
  receipt_cumulative_gas_used: Big.nullish(), receipt_gas_used: Big.nullish(),
  receipt_contract_address: Address.nullish(), receipt_status: Int.nullish(), receipt_effective_gas_price: Big.nullish()
})
export type EtlTransaction = z.infer<typeof EtlTransaction>

export const EtlLog = z.object({
  log_index: Int, transaction_hash: Hash, transaction_index: Int, address: Address, data: Hex,
  topics: z.array(Hex), block_number: Int, block_hash: Hash
})
export type EtlLog = z.infer<typeof EtlLog>

export interface EtlDataset {
  readonly blocks: ReadonlyArray<EtlBlock>
  readonly transactions: ReadonlyArray<EtlTransaction>
  readonly logs: ReadonlyArray<EtlLog>
}

/** Parses JSON lines with `schema`, naming the file and line of the first bad row. */
export const readJsonLines = <T extends z.ZodType>(file: string, schema: T): Array<z.infer<T>> =>
  readFileSync(file, "utf8").split("\n").flatMap((line, i) => {
    if (line.trim() === "") return []
    const parsed = schema.safeParse(parseJsonLossless(line))
    if (!parsed.success) throw new Error(`${file}:${i + 1}: ${z.prettifyError(parsed.error)}`)
    return [parsed.data]
  })

const findFile = (dir: string, kind: string): string => {
  const names = [`expected_${kind}.json`, `${kind}.json`, `${kind}.jsonl`]
  const found = names.map((n) => join(dir, n)).find((p) => existsSync(p))
  if (found === undefined) throw new Error(`no ethereum-etl ${kind} file in ${dir} (looked for ${names.join(", ")})`)
  return found
}

/** Reads `blocks`, `transactions` and `logs` exports from a folder (`expected_*.json` or `*.json[l]`). */
export const readEtlDir = (dir: string): EtlDataset => ({
  blocks: readJsonLines(findFile(dir, "blocks"), EtlBlock),
  transactions: readJsonLines(findFile(dir, "transactions"), EtlTransaction),
  logs: readJsonLines(findFile(dir, "logs"), EtlLog)
})

export const etlTransaction = (t: EtlTransaction): RawTx => ({
  hash: t.hash, blockNumber: t.block_number, blockHash: t.block_hash, timestamp: t.block_timestamp,
  from: t.from_address, to: t.to_address, value: t.value, input: t.input.slice(0, 10).toLowerCase(),
  transactionIndex: t.transaction_index,
  ...(t.receipt_status == null ? {} : { status: t.receipt_status === 1 ? "success" : "reverted" })
})

export const etlLog = (l: EtlLog): RawLog => ({
  address: l.address, topics: l.topics.map((t) => t.toLowerCase()), data: l.data, logIndex: l.log_index,
  transactionHash: l.transaction_hash, blockNumber: l.block_number, blockHash: l.block_hash
})

/** Blocks in number order, each with its transactions in index order. */
export const etlChainBlocks = (data: EtlDataset): Array<ChainBlock> => {
  const txs = new Map<number, Array<RawTx>>()
  for (const t of data.transactions) {
    const list = txs.get(t.block_number) ?? []
    list.push(etlTransaction(t))
    txs.set(t.block_number, list)
  }
  return [...data.blocks]
    .sort((a, b) => a.number - b.number)
    .map((b) => ({
      number: b.number, hash: b.hash, parentHash: b.parent_hash, timestamp: b.timestamp,
      transactions: (txs.get(b.number) ?? []).sort((x, y) => x.transactionIndex - y.transactionIndex)
    }))
}
