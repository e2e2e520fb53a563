/**
 * Bulk export of the keyed data API: `GET /api/v1/export/transactions` (whale_tx rows from..to, oldest first by id,
 * the rows `/api/v1/transactions` pages through) and `GET /api/v1/export/token-flows` (daily flows per token from the
 * daily roll-up), as NDJSON or CSV with a `Content-Disposition` filename.
 *
 * Streamed with backpressure (`Reply.stream`: a page of PAGE rows is read only once the previous one has left), so
 * the process holds one page whatever the export's size. Resumable: transactions by `after_id` (the last id
 * received), token flows by `after` (the last row's `cursor`). The range of one export is bounded per tier
 * (EXPORT_MAX_DAYS); longer ranges are asked in parts.
 *
 * Quota: an export costs 1 request when it starts (counted like any keyed request: refused with 429 past the limit,
 * 422 for a bad query, both with the quota headers) and 1 more per started 1,000 rows after the first 1,000
 * (EXPORT_ROWS_PER_REQUEST): 2,500 rows cost 3. When the daily limit is reached mid-export the body ends after the
 * last row the quota covers; resume the next day with the cursor of the last row received.
 */
import { Effect, Option, Stream } from "effect"
import type { z } from "zod"
import {
  DAY_MS, EXPORT_FLOW_COLUMNS, EXPORT_MAX_DAYS, EXPORT_ROWS_PER_REQUEST, EXPORT_TX_COLUMNS, type ExportFormat, type ExportQuery, type TokenFlowsExportQuery
} from "../../../schema/http/dataapi-live"
import { Analytics } from "../../domains/analytics/Analytics"
import { ExportPages } from "../../domains/analytics/ExportPages"
import type { KeyOwner } from "../../domains/apikeys/ApiKeys"
import { parseForm } from "../../platform/http/Body"
import { TooManyRequests } from "../../platform/http/Errors"
import { errorReply } from "../../platform/http/Respond"
import { Reply } from "../../platform/http/Reply"
import type { RequestInfo } from "../../platform/http/Route"
import { validateSync } from "../../platform/http/Validate"
import { isoWithOffset } from "../../domains/analytics/Windows"
import { rateLimitHeaders } from "./DataApi"
import { Quota, type QuotaState } from "./Quota"
import { UsageEvents } from "./UsageEvents"

/** Rows read per database round trip (and written per chunk). */
export const PAGE = 5_000

const CONTENT_TYPE: Record<ExportFormat, string> = { ndjson: "application/x-ndjson; charset=utf-8", csv: "text/csv; charset=utf-8" }

const csvField = (v: unknown): string => {
  if (v === null || v === undefined) return ""
  const s = String(v)
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}
const csvLine = (columns: ReadonlyArray<string>, row: Record<string, unknown>) => columns.map((c) => csvField(row[c])).join(",") + "\n"

/** Requests an export of `rows` rows costs in all (at least 1). */
export const exportCost = (rows: number) => Math.max(1, Math.ceil(rows / EXPORT_ROWS_PER_REQUEST))

export class Exports extends Effect.Service<Exports>()("app/dataapi/Exports", {
  dependencies: [ExportPages.Default, Quota.Default, UsageEvents.Default],
  effect: Effect.gen(function* () {
    const pages = yield* ExportPages
    const analytics = yield* Analytics
    const quota = yield* Quota
    const usage = yield* UsageEvents

    const hit = (owner: KeyOwner, endpoint: string) =>
      Effect.tap(quota.hit(owner.userId, owner.keyId), (q) => Effect.sync(() => usage.unsafeRecord(owner, endpoint, q)))

    const refuse = (q: QuotaState) => {
      const resetAt = isoWithOffset(q.resetAtMs)
      return errorReply(new TooManyRequests({
        message: `Daily limit of ${q.limit} requests reached; it resets at ${resetAt}`, code: "daily_limit_reached",
        retryAfterSeconds: q.retryAfterSeconds, headers: Object.fromEntries(rateLimitHeaders(q)), extra: { limit: q.limit, reset_at: resetAt }
      }))
    }

    /**
     * The body: pages read one at a time, each after the previous chunk left; each page first pays the requests its
     * rows cost beyond what is paid (the first 1,000 rows came with the request). Past the limit, the rows the quota
     * covers go out and the body ends.
     */
    const body = <R>(
      owner: KeyOwner, endpoint: string, format: ExportFormat, columns: ReadonlyArray<string>,
      read: (after: R | null) => Effect.Effect<ReadonlyArray<Record<string, unknown>>>, cursorOf: (row: Record<string, unknown>) => R, start: R | null
    ) => {
      const line = format === "csv" ? (row: Record<string, unknown>) => csvLine(columns, row) : (row: Record<string, unknown>) => JSON.stringify(row) + "\n"
      type State = { readonly after: R | null; readonly sent: number; readonly paid: number; readonly done: boolean }
      const pages = Stream.unfoldEffect<State, string, never, never>({ after: start, sent: 0, paid: 1, done: false }, (s) =>
        Effect.gen(function* () {
          if (s.done) return Option.none()
          const rows = yield* read(s.after)
          if (rows.length === 0) return Option.none()
          const owed = exportCost(s.sent + rows.length) - s.paid
          let paid = s.paid
          for (let i = 0; i < owed; i++) {
            if (!(yield* hit(owner, endpoint)).allowed) break
            paid++
          }
          const covered = Math.min(rows.length, paid * EXPORT_ROWS_PER_REQUEST - s.sent)
          const out = covered === rows.length ? rows : rows.slice(0, covered)
          if (out.length === 0) return Option.none()
          let text = ""
          for (const row of out) text += line(row)
          const last = out[out.length - 1]!
          return Option.some([text, { after: cursorOf(last), sent: s.sent + out.length, paid, done: out.length < PAGE }] as const)
        }))
      return format === "csv" ? Stream.concat(Stream.make(columns.join(",") + "\n"), pages) : pages
    }

    /** Count → refuse past the limit → validate (422 with the quota headers) → range per tier → the streamed body. */
    const serve = <S extends z.ZodType>(
      owner: KeyOwner, req: RequestInfo, endpoint: string, schema: S, name: string,
      make: (query: z.output<S>, from: number, to: number) => Effect.Effect<Stream.Stream<string>>
    ) =>
      Effect.gen(function* () {
        const q = yield* hit(owner, endpoint)
        if (!q.allowed) return refuse(q)
        const headers = rateLimitHeaders(q)
        const parsed = validateSync("query", schema, parseForm(req.query))
        if (!parsed.ok) return Reply.json({ detail: parsed.issues }, 422, headers)
        const query = parsed.value as ExportQuery
        const to = query.to ?? q.at
        const maxDays = owner.tier === "staff" ? EXPORT_MAX_DAYS.staff : EXPORT_MAX_DAYS.whale
        const problem = query.from >= to ? "from must be before to" : to - query.from > maxDays * DAY_MS ? `one export covers at most ${maxDays} days (${owner.tier} tier): ask the rest in another export` : null
        if (problem !== null) return Reply.json({ detail: [{ type: "value_error", loc: ["query", "from"], msg: problem, input: req.query }] }, 422, headers)
        const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, "")
        return Reply.stream(yield* make(parsed.value, query.from, to), CONTENT_TYPE[query.format], 200, [
          ...headers,
          ["content-disposition", `attachment; filename="whale-${name}_${stamp(query.from)}_${stamp(to)}.${query.format}"`],
          ["x-export-rows-per-request", String(EXPORT_ROWS_PER_REQUEST)],
          ["cache-control", "no-store"]
        ])
      })

    const transactions = (owner: KeyOwner, req: RequestInfo, endpoint: string, schema: z.ZodType<ExportQuery, any>) =>
      serve(owner, req, endpoint, schema, "transactions", (query, from, to) =>
        Effect.succeed(body<number>(owner, endpoint, query.format, EXPORT_TX_COLUMNS,
          (after) => pages.transactions(from, to, after ?? 0, PAGE),
          (row) => row.id as number, query.after_id ?? null)))

    const tokenFlows = (owner: KeyOwner, req: RequestInfo, endpoint: string, schema: z.ZodType<TokenFlowsExportQuery, any>) =>
      serve(owner, req, endpoint, schema, "token-flows", (query, from, to) =>
        Effect.gen(function* () {
          const tokens = query.token === undefined ? null : yield* analytics.resolveTokens(query.token)
          const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
          // Whole UTC days: from's day up to and including the day of the last instant before `to`.
          const toDay = day(Math.floor((to - 1) / DAY_MS) * DAY_MS + DAY_MS)
          const start = query.after === undefined ? null : { day: query.after.slice(0, 10), token: query.after.slice(11) }
          return body<{ day: string; token: string }>(owner, endpoint, query.format, EXPORT_FLOW_COLUMNS,
            (after) => pages.tokenFlows(day(from), toDay, after, tokens, PAGE),
            (row) => ({ day: row.day as string, token: row.token as string }), start)
        }))

    return { transactions, tokenFlows } as const
  })
}) {}
