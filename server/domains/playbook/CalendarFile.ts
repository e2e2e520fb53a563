/**
 * The calendar file format (data/playbook-calendar.json and `npm run playbook -- import FILE`), pure:
 *  - JSON: an array of entries, or `{ "events": [...] }`;
 *  - CSV: a header row naming the columns `key,title,category,timestamp,severity,tokens,description,source_url`
 *    (any order; `key`, `tokens`, `description`, `source_url` optional), RFC 4180 quoting, tokens separated by `|`.
 * A file is accepted whole or rejected whole: every problem of every row is listed (row, field, message, input).
 * An entry without `key` gets `<category>:<timestamp>`; two entries with the same key are a problem.
 */
import type { z } from "zod"
import { CalendarEntry } from "../../../schema/http/playbook"

export interface Problem {
  /** 1-based entry number (JSON) or line number (CSV); 0 for the file itself. */
  readonly row: number
  readonly field: string
  readonly msg: string
  readonly input?: unknown
}

export type Keyed = CalendarEntry & { readonly key: string }
export type Parsed = { readonly _tag: "Ok"; readonly entries: ReadonlyArray<Keyed> } | { readonly _tag: "Rejected"; readonly problems: ReadonlyArray<Problem> }

const CSV_COLUMNS = ["key", "title", "category", "timestamp", "severity", "tokens", "description", "source_url"] as const
const REQUIRED = ["title", "category", "timestamp", "severity"] as const

/** RFC 4180 rows: quoted fields may hold commas, newlines and doubled quotes. Returns rows with their first line number. */
export const csvRows = (text: string): { rows: Array<{ line: number; cells: Array<string> }>; problem?: string } => {
  const rows: Array<{ line: number; cells: Array<string> }> = []
  let cells: Array<string> = []
  let cell = ""
  let quoted = false
  let line = 1
  let rowLine = 1
  let i = 0
  const s = text.replace(/^\uFEFF/, "")
  const endRow = () => {
    cells.push(cell)
    if (!(cells.length === 1 && cells[0]!.trim() === "")) rows.push({ line: rowLine, cells })
    cells = []
    cell = ""
  }
  while (i < s.length) {
    const c = s[i]!
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') (cell += '"'), (i += 2)
      else if (c === '"') (quoted = false), i++
      else {
        if (c === "\n") line++
        cell += c
        i++
      }
    } else if (c === '"' && cell === "") (quoted = true), i++
    else if (c === ",") cells.push(cell), (cell = ""), i++
    else if (c === "\r" && s[i + 1] === "\n") i++
    else if (c === "\n") endRow(), line++, (rowLine = line), i++
    else (cell += c), i++
  }
  if (quoted) return { rows, problem: `unterminated quoted field starting on line ${rowLine}` }
  if (cell !== "" || cells.length > 0) endRow()
  return { rows }
}

const fromCsv = (text: string): { raws: Array<{ row: number; value: Record<string, unknown> }>; problems: Array<Problem> } => {
  const { rows, problem } = csvRows(text)
  const problems: Array<Problem> = []
  if (problem) return { raws: [], problems: [{ row: 0, field: "file", msg: problem }] }
  const header = rows[0]
  if (!header) return { raws: [], problems: [{ row: 0, field: "file", msg: "the CSV file is empty (a header row is required)" }] }
  const names = header.cells.map((c) => c.trim().toLowerCase())
  names.forEach((n, i) => {
    if (!(CSV_COLUMNS as ReadonlyArray<string>).includes(n)) problems.push({ row: header.line, field: `column ${i + 1}`, msg: `unknown column; expected some of ${CSV_COLUMNS.join(", ")}`, input: n })
    else if (names.indexOf(n) !== i) problems.push({ row: header.line, field: n, msg: "column named twice" })
  })
  for (const r of REQUIRED) if (!names.includes(r)) problems.push({ row: header.line, field: r, msg: "required column missing" })
  if (problems.length > 0) return { raws: [], problems }
  const raws = rows.slice(1).map(({ line, cells }) => {
    if (cells.length !== names.length) problems.push({ row: line, field: "row", msg: `expected ${names.length} cells, found ${cells.length}` })
    const value: Record<string, unknown> = {}
    names.forEach((n, i) => {
      const v = (cells[i] ?? "").trim()
      if (v === "") return
      if (n === "severity") value[n] = /^-?\d+$/.test(v) ? Number(v) : v
      else if (n === "tokens") value[n] = v.split("|").map((t) => t.trim()).filter((t) => t !== "")
      else value[n] = v
    })
    return { row: line, value }
  })
  return { raws, problems }
}

const fromJson = (text: string): { raws: Array<{ row: number; value: unknown }>; problems: Array<Problem> } => {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    return { raws: [], problems: [{ row: 0, field: "file", msg: `not valid JSON: ${(e as Error).message}` }] }
  }
  const list = Array.isArray(doc) ? doc : doc !== null && typeof doc === "object" && Array.isArray((doc as { events?: unknown }).events) ? (doc as { events: Array<unknown> }).events : null
  if (list === null) return { raws: [], problems: [{ row: 0, field: "file", msg: 'expected an array of events or an object with an "events" array' }] }
  return { raws: list.map((value, i) => ({ row: i + 1, value })), problems: [] }
}

const describe = (issue: z.core.$ZodIssue): { field: string; msg: string } => ({
  field: issue.path.length === 0 ? "entry" : issue.path.map(String).join("."),
  msg: issue.message
})

/** Validates a whole file; `format` defaults to the content (JSON when it starts with `[` or `{`). */
export const parseCalendar = (text: string, format?: "json" | "csv"): Parsed => {
  const fmt = format ?? (/^\s*[[{]/.test(text.replace(/^\uFEFF/, "")) ? "json" : "csv")
  const { raws, problems } = fmt === "json" ? fromJson(text) : fromCsv(text)
  const out: Array<Problem> = [...problems]
  const entries: Array<Keyed> = []
  const seen = new Map<string, number>()
  for (const { row, value } of raws) {
    const r = CalendarEntry.safeParse(value)
    if (!r.success) {
      for (const issue of r.error.issues) {
        const input = issue.path.reduce<unknown>((v, k) => (v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k as PropertyKey] : undefined), value)
        out.push({ row, ...describe(issue), ...(input === undefined && issue.code === "invalid_type" ? { msg: "required" } : {}), input })
      }
      continue
    }
    const key = r.data.key ?? `${r.data.category}:${r.data.timestamp}`
    const first = seen.get(key)
    if (first !== undefined) out.push({ row, field: "key", msg: `duplicate of the entry at ${fmt === "json" ? "entry" : "line"} ${first}`, input: key })
    else seen.set(key, row)
    entries.push({ ...r.data, key })
  }
  if (raws.length === 0 && out.length === 0) out.push({ row: 0, field: "file", msg: "the file holds no events" })
  return out.length > 0 ? { _tag: "Rejected", problems: out } : { _tag: "Ok", entries }
}

/** One line per problem, for the CLI. */
export const formatProblems = (ps: ReadonlyArray<Problem>, fmt: "json" | "csv"): string =>
  ps
    .map((p) => `${p.row === 0 ? "file" : `${fmt === "json" ? "entry" : "line"} ${p.row}`}: ${p.field}: ${p.msg}${p.input === undefined ? "" : ` (got ${JSON.stringify(p.input)})`}`)
    .join("\n")
