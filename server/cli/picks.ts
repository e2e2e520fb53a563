/**
 * Picks, for operators:
 *   npm run picks -- rebuild [--json]   recompute every pick, exit and grade from the stored whale records
 * The rebuild empties the picks tables (never the ledger), replays `whale_tx` in time order through the same rules as
 * the live picks-grader (grading each pick as of the records' time), and appends a `rebuild` entry and the new flags,
 * exits and grades to the ledger. The same records give the same picks. Stop the picks-grader first (or accept that
 * it resumes on the rebuilt tables). Uses DATABASE_URL, or the embedded database under DATA_DIR (stop an embedded
 * server first).
 */
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { Chain } from "../domains/chain/Chain"
import { ChainSourceLive } from "../domains/chain/SourceLive"
import { Picks } from "../domains/picks/Picks"
import { AppConfig } from "../platform/Config"
import { SqlLive } from "../platform/infra/Sql"
import { BusAndKvLive } from "../platform/infra/BusAndKv"

const USAGE = "usage: npm run picks -- rebuild [--json]"
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { json: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } }
})

const command = Effect.gen(function* () {
  const picks = yield* Picks
  if (values.help || positionals.length !== 1 || positionals[0] !== "rebuild") {
    return yield* Effect.sync(() => {
      console.error(USAGE)
      process.exitCode = values.help ? 0 : 2
    })
  }
  const started = Date.now()
  const result = yield* picks.rebuild((n) => {
    if (!values.json && process.stderr.isTTY) process.stderr.write(`\r${n} records replayed`)
  })
  const seconds = (Date.now() - started) / 1000
  yield* Effect.sync(() => {
    if (!values.json && process.stderr.isTTY) process.stderr.write("\n")
    console.log(values.json
      ? JSON.stringify({ ...result, seconds })
      : `rebuilt picks from ${result.records} record(s): ${result.flagged} flagged, ${result.graded} graded at the end, in ${seconds.toFixed(1)} s`)
  })
})

const Live = Picks.Default.pipe(
  // The stored records and token flags are read through the chain domain.
  Layer.provideMerge(Chain.Default.pipe(Layer.provide(ChainSourceLive))),
  Layer.provideMerge(Layer.mergeAll(SqlLive(), BusAndKvLive)),
  Layer.provideMerge(AppConfig.Default),
  Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning))
)

NodeRuntime.runMain(command.pipe(Effect.provide(Live)), { disablePrettyLogger: true })
