/**
 * npm run backfill -- --from N --to M [--wallets FILE] [--dry-run] [--json]
 *
 * Ingests blocks N..M (inclusive) over ETH_RPC_URL for the tracked wallets (plus those of FILE: a CSV with a
 * header address,label[,cohort], or a JSON array of such objects) and stores the records, unless --dry-run.
 * Progress goes to stderr; with --json every record is printed on stdout, one JSON object per line:
 *   tx_hash, block, ts (ISO 8601 UTC), wallet, token, symbol, category, amount, usd, price_usd, counter_token, venue
 * CHAIN_SOURCE=replay|demo reads those sources instead. Uses DATABASE_URL, or the embedded database under DATA_DIR
 * (stop an embedded server first).
 */
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { backfill } from "../domains/chain/Backfill"
import { ChainCatalog } from "../domains/chain/Catalog"
import { ChainConfig } from "../domains/chain/Config"
import { ChainRepo } from "../domains/chain/Repo"
import { ChainSourceLive } from "../domains/chain/SourceLive"
import type { WhaleRecord } from "../domains/chain/Types"
import { readWalletFile } from "../domains/chain/WalletFile"
import { toRecordLine } from "../domains/chain/Wire"
import { AppConfig } from "../platform/Config"
import { SqlLive } from "../platform/infra/Sql"
import { progressBar } from "./progress"

const USAGE = `usage: npm run backfill -- --from N --to M [--wallets FILE] [--dry-run] [--json]
  --from, --to   the block range, inclusive
  --wallets      a CSV file (header address,label[,cohort]) or a JSON array of {address, label, cohort?}:
                 tracked in this run in addition to the stored wallets
  --dry-run      write nothing to the database
  --json         print every record on stdout, one JSON object per line
The chain is read over ETH_RPC_URL (or CHAIN_SOURCE=replay|demo).`

const usage = (problem: string) => {
  console.error(`error: ${problem}\n${USAGE}`)
  process.exit(2)
}

const parsed = (() => {
  try {
    return parseArgs({
      options: {
        from: { type: "string" }, to: { type: "string" }, wallets: { type: "string" },
        "dry-run": { type: "boolean", default: false }, json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false }
      }
    }).values
  } catch (e) {
    return usage((e as Error).message)
  }
})()
if (parsed.help) {
  console.log(USAGE)
  process.exit(0)
}
const blockArg = (name: "from" | "to") => {
  const raw = parsed[name]
  if (raw === undefined || !/^\d+$/.test(raw)) return usage(`--${name} must be a block number`)
  return Number(raw)
}
const from = blockArg("from")
const to = blockArg("to")
if (from > to) usage("--from must not be after --to")
const dryRun = parsed["dry-run"]

/** Writes to stdout, waiting when the reader is slower than the chain. */
const writeOut = (text: string) =>
  Effect.async<void>((resume) => {
    if (process.stdout.write(text)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

const fail = (message: string) =>
  Effect.sync(() => {
    console.error(`error: ${message}`)
    process.exitCode = 1
  })

const run = Effect.gen(function* () {
  const extraWallets = parsed.wallets === undefined ? [] : yield* readWalletFile(parsed.wallets)
  const started = Date.now()
  const progress = progressBar(to - from + 1)
  const onBlock = (_: number, records: ReadonlyArray<WhaleRecord>) =>
    Effect.gen(function* () {
      if (parsed.json && records.length > 0) yield* writeOut(records.map((r) => `${JSON.stringify(toRecordLine(r))}\n`).join(""))
      progress.advance(1, records.length)
    })
  const result = yield* backfill({ from, to, extraWallets, dryRun, onBlock }).pipe(Effect.ensuring(Effect.sync(progress.done)))
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  console.error(
    `backfilled blocks ${from}–${to} from the ${result.source} source for ${result.wallets} wallets: ` +
      `${result.records} records, ${dryRun ? "dry run, nothing written" : `${result.stored} newly stored`} (${seconds} s)`
  )
}).pipe(
  Effect.catchTags({
    WalletFileError: (e) => fail(`${e.file}: ${e.problems.join("; ")}`),
    BeyondHead: (e) => fail(e.message),
    RpcError: (e) => fail(`${e.method}: ${e.message}`),
    BlockNotFound: (e) => fail(`block ${e.number} was not found`)
  })
)

const stderrLogs = Layer.mergeAll(
  Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
  Logger.minimumLogLevel(LogLevel.Warning)
)
const Live = Layer.mergeAll(ChainConfig.Default, ChainRepo.Default, ChainCatalog.Default, ChainSourceLive).pipe(
  Layer.provideMerge(SqlLive({ migrate: !dryRun })),
  Layer.provideMerge(AppConfig.Default),
  Layer.provideMerge(stderrLogs)
)

// The source is checked before the database is opened.
const program = Effect.gen(function* () {
  const chain = yield* ChainConfig
  if (chain.source === "demo" && !chain.sourceExplicit) {
    return yield* fail("ETH_RPC_URL is not set: backfill reads a real chain (CHAIN_SOURCE=demo backfills the demo chain)")
  }
  yield* run.pipe(Effect.provide(Live))
}).pipe(
  Effect.provide(ChainConfig.Default),
  // Logs (retries, warnings) go to stderr: stdout carries only the records.
  Effect.provide(stderrLogs)
)

NodeRuntime.runMain(program, { disablePrettyLogger: true })
