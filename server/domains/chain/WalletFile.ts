/**
 * Wallet lists handed over by operators (`npm run wallets -- import FILE`, `npm run backfill -- --wallets FILE`):
 * a CSV file with a header naming `address`, `label` and optionally `cohort` (RFC 4180 quoting), or a JSON array
 * of `{ "address", "label", "cohort"? }` objects. Addresses are checked (a mixed-case address must carry a valid
 * checksum) and stored lower case. A file with any bad entry is rejected whole, with every problem listed.
 */
import { readFileSync } from "node:fs"
import { Data, Effect } from "effect"
import { isAddress } from "viem"
import { z } from "zod"

export const WalletEntry = z.object({
  address: z.string().trim().refine((a) => isAddress(a, { strict: true }), "not an address (or a bad checksum)")
    .transform((a) => a.toLowerCase()),
  label: z.string().trim().min(1, "label is empty").max(200),
  cohort: z.enum(["mega", "large", "mid", "small"]).optional()
})
export type WalletEntry = z.infer<typeof WalletEntry>

export class WalletFileError extends Data.TaggedError("WalletFileError")<{
  readonly file: string
  readonly problems: ReadonlyArray<string>
}> {
  override get message() {
    return `${this.file}: ${this.problems.join("; ")}`
  }
}

/** Splits CSV text into rows of fields (quoted fields may hold commas, quotes as "" and line breaks). */
export const parseCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  const endRow = () => {
    row.push(field)
    rows.push(row)
    row = []
    field = ""
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"'
      i++
    } else if (quoted) {
      if (c === '"') quoted = false
      else field += c
    } else if (c === '"' && field.length === 0) {
      quoted = true
    } else if (c === ",") {
      row.push(field)
      field = ""
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++
      endRow()
    } else {
      field += c
    }
  }
  if (field.length > 0 || row.length > 0) endRow()
  return rows
}

const fromCsv = (text: string): { rows: Array<{ line: string; value: unknown }>; problems: Array<string> } => {
  const [header, ...body] = parseCsv(text.replace(/^\uFEFF/, ""))
  const names = (header ?? []).map((h) => h.trim().toLowerCase())
  const missing = ["address", "label"].filter((n) => !names.includes(n))
  if (missing.length > 0) return { rows: [], problems: [`the header must name address,label[,cohort] (missing: ${missing.join(", ")})`] }
  const rows = body.flatMap((fields, i) => {
    if (fields.every((f) => f.trim() === "")) return []
    const value = Object.fromEntries(names.map((n, j) => [n, fields[j]]).filter(([n, v]) => n === "address" || n === "label" || (n === "cohort" && v?.trim())))
    if (typeof value.cohort === "string") value.cohort = value.cohort.trim().toLowerCase()
    return [{ line: `line ${i + 2}`, value }]
  })
  return { rows, problems: [] }
}

const fromJson = (text: string): { rows: Array<{ line: string; value: unknown }>; problems: Array<string> } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    return { rows: [], problems: [`not valid JSON (${(e as Error).message})`] }
  }
  if (!Array.isArray(parsed)) return { rows: [], problems: ["a JSON wallet file is an array of {address, label, cohort?}"] }
  return { rows: parsed.map((value, i) => ({ line: `entry ${i + 1}`, value })), problems: [] }
}

/** Parses a wallet list; `name` decides the format (.json, else CSV unless the text starts with `[`). */
export const parseWallets = (name: string, text: string): { wallets: Array<WalletEntry>; problems: Array<string> } => {
  const json = /\.json$/i.test(name) || (!/\.csv$/i.test(name) && text.trimStart().startsWith("["))
  const { rows, problems } = json ? fromJson(text) : fromCsv(text)
  const wallets: Array<WalletEntry> = []
  const seen = new Map<string, string>()
  for (const { line, value } of rows) {
    const parsed = WalletEntry.safeParse(value)
    if (!parsed.success) {
      problems.push(`${line}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "entry"}: ${i.message}`).join(", ")}`)
      continue
    }
    const earlier = seen.get(parsed.data.address)
    if (earlier !== undefined) problems.push(`${line}: ${parsed.data.address} is listed already (${earlier})`)
    seen.set(parsed.data.address, line)
    wallets.push(parsed.data)
  }
  if (rows.length === 0 && problems.length === 0) problems.push("no wallets in the file")
  return { wallets, problems }
}

/** Reads and parses a wallet file; any problem fails with all of them. */
export const readWalletFile = (file: string) =>
  Effect.try({ try: () => readFileSync(file, "utf8"), catch: (e) => new WalletFileError({ file, problems: [(e as Error).message] }) }).pipe(
    Effect.flatMap((text) => {
      const { wallets, problems } = parseWallets(file, text)
      return problems.length > 0 ? Effect.fail(new WalletFileError({ file, problems })) : Effect.succeed(wallets)
    })
  )
