/**
 * The project's own reference data (data/tokens.json, labels.json, wallets.json): loaded, validated, indexed.
 * A malformed file is a programming error (they ship with the code), so loading throws with the file named.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { z } from "zod"
import { Label, TokenInfo, TrackedWallet, type ResolvedToken } from "./Types"

export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"

export const DATA_DIR = fileURLToPath(new URL("../../../data/", import.meta.url))

export type TokenLookup = (address: string) => ResolvedToken | undefined
export type LabelLookup = (address: string) => Label | undefined

export interface Reference {
  readonly tokens: ReadonlyMap<string, TokenInfo>
  readonly labels: ReadonlyMap<string, Label>
  readonly wallets: ReadonlyArray<TrackedWallet>
}

const readList = <T extends z.ZodType>(file: string, schema: T): Array<z.infer<T>> => {
  const parsed = z.array(schema).safeParse(JSON.parse(readFileSync(file, "utf8")))
  if (!parsed.success) throw new Error(`${file} is invalid: ${z.prettifyError(parsed.error)}`)
  return parsed.data
}

const indexUnique = <T extends { address: string }>(file: string, rows: ReadonlyArray<T>): Map<string, T> => {
  const map = new Map<string, T>()
  for (const row of rows) {
    if (map.has(row.address)) throw new Error(`${file}: duplicate address ${row.address}`)
    map.set(row.address, row)
  }
  return map
}

/** Reads the three seed files from `dir` (default: the repository's data/). */
export const loadReference = (dir: string = DATA_DIR): Reference => {
  const file = (name: string) => fileURLToPath(new URL(name, `file://${dir.endsWith("/") ? dir : `${dir}/`}`))
  const tokens = indexUnique("tokens.json", readList(file("tokens.json"), TokenInfo))
  const labels = indexUnique("labels.json", readList(file("labels.json"), Label))
  const wallets = [...indexUnique("wallets.json", readList(file("wallets.json"), TrackedWallet)).values()]
  return { tokens, labels, wallets }
}

export const tokenLookup = (tokens: ReadonlyMap<string, ResolvedToken>): TokenLookup => (address) =>
  tokens.get(address.toLowerCase())

export const labelLookup = (labels: ReadonlyMap<string, Label>): LabelLookup => (address) =>
  labels.get(address.toLowerCase())

/** WETH or a stablecoin: the side of a swap that is "money" rather than the thing bought or sold. */
export const isQuote = (token: ResolvedToken | undefined, address: string): boolean =>
  address === WETH || token?.stable === true
