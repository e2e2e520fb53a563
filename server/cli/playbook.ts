/**
 * The playbook calendar, for operators:
 *   npm run playbook -- import FILE.json|FILE.csv [--json]   add or update events (upserted by `key`)
 *   npm run playbook -- list [--json]                        every event, newest first
 * A file is imported whole or not at all: every problem of every row is listed and nothing is written. Rows an
 * admin edited in the console keep their fields. Uses DATABASE_URL, or the embedded database under DATA_DIR —
 * stop an embedded server first: its database belongs to one process at a time.
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { formatProblems, parseCalendar } from "../domains/playbook/CalendarFile"
import { PlaybookRepo } from "../domains/playbook/Repo"
import { AppConfig } from "../platform/Config"
import { SqlLive } from "../platform/infra/Sql"

const USAGE = `usage:
  npm run playbook -- import FILE.json|FILE.csv [--json]
  npm run playbook -- list [--json]
JSON: an array of events or {"events": [...]}; each {key?, title, category, timestamp, severity, tokens?, description?,
source_url?}. CSV: a header naming key,title,category,timestamp,severity,tokens,description,source_url (key, tokens,
description and source_url optional; tokens separated by |). Categories: fomc, cpi, jobs, etf, unlock, upgrade,
listing, exploit, other. Timestamps are ISO 8601 with an offset; severity 1-5.`

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { json: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } }
})

const print = (text: string) => Effect.sync(() => console.log(text))
const fail = (lines: ReadonlyArray<string>, code: number) =>
  Effect.sync(() => {
    for (const l of lines) console.error(l)
    process.exitCode = code
  })

const command = Effect.gen(function* () {
  const repo = yield* PlaybookRepo
  const [verb, file, ...rest] = positionals
  if (values.help || rest.length > 0) return yield* fail([USAGE], values.help ? 0 : 2)
  if (verb === "list" && file === undefined) {
    const rows = yield* repo.list({ limit: 100_000 })
    if (values.json) return yield* print(JSON.stringify(rows))
    return yield* print(
      [...rows.map((r) => `${String(r.id).padStart(5)}  ${r.ts.toISOString()}  ${r.category.padEnd(8)}  ${r.status.padEnd(9)}  sev ${r.severity}  ${r.title}`), `${rows.length} event(s)`].join("\n")
    )
  }
  if (verb === "import" && file !== undefined) {
    const fmt = file.toLowerCase().endsWith(".csv") ? "csv" : "json"
    const text = yield* Effect.try(() => readFileSync(file, "utf8")).pipe(Effect.either)
    if (text._tag === "Left") return yield* fail([`error: cannot read ${file}: ${(text.left.error as Error).message}`], 1)
    const parsed = parseCalendar(text.right, fmt)
    if (parsed._tag === "Rejected") {
      if (values.json) return yield* fail([JSON.stringify({ file, imported: false, problems: parsed.problems })], 1)
      return yield* fail([`error: ${file} was not imported (nothing was written): ${parsed.problems.length} problem(s)`, formatProblems(parsed.problems, fmt)], 1)
    }
    const n = yield* repo.upsertCalendar(
      parsed.entries.map((e) => ({
        key: e.key, title: e.title, category: e.category, timestamp: e.timestamp, severity: e.severity,
        tokens: e.tokens ?? [], description: e.description ?? "", source_url: e.source_url ?? null
      })),
      "import"
    )
    return yield* print(
      values.json
        ? JSON.stringify({ file, imported: true, events: parsed.entries.length, ...n })
        : `imported ${parsed.entries.length} event(s) from ${file}: ${n.inserted} added, ${n.updated} updated, ${parsed.entries.length - n.inserted - n.updated} unchanged or kept (edited by an admin)`
    )
  }
  yield* fail([USAGE], 2)
})

const Live = PlaybookRepo.Default.pipe(
  Layer.provideMerge(SqlLive()),
  Layer.provideMerge(AppConfig.Default),
  Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning))
)

NodeRuntime.runMain(command.pipe(Effect.provide(Live)), { disablePrettyLogger: true })
