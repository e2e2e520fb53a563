/**
 * Tracked wallets, for operators:
 *   npm run wallets -- import FILE.csv|FILE.json [--json]   add or update wallets (CSV header address,label[,cohort])
 *   npm run wallets -- list [--json]                        every tracked wallet, active ones first
 *   npm run wallets -- classify … | identity …              wallet identity (server/cli/walletIdentity.ts)
 *   npm run wallets -- candidates [approve|reject …]        whale discovery's queue (server/cli/walletCandidates.ts)
 * A running listener picks the changes up at its next block. Uses DATABASE_URL, or the embedded database under
 * DATA_DIR — stop an embedded server first: its database belongs to one process at a time.
 */
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { ChainRepo } from "../domains/chain/Repo"
import type { WalletRow } from "../domains/chain/Types"
import { readWalletFile } from "../domains/chain/WalletFile"
import { AppConfig } from "../platform/Config"
import { SqlLive } from "../platform/infra/Sql"
import { runWalletCandidates } from "./walletCandidates"
import { runWalletIdentity } from "./walletIdentity"

const USAGE = `usage:
  npm run wallets -- import FILE.csv|FILE.json [--json]
  npm run wallets -- list [--json]
  npm run -s wallets -- classify --from N --to M [--json] [--dry-run]
  npm run wallets -- identity set|unset|show …   (npm run wallets -- identity for its usage)
  npm run wallets -- candidates [--status S] [--json] | candidates approve ADDRESS | candidates reject ADDRESS --reason TEXT
A CSV file has a header naming address,label and optionally cohort (mega, large, mid, small; default mid);
a JSON file is an array of {"address", "label", "cohort"?} objects.`

const identityVerb = process.argv[2] === "classify" || process.argv[2] === "identity"
const candidatesVerb = process.argv[2] === "candidates"

const { positionals, values } = identityVerb || candidatesVerb ? { positionals: [], values: { json: false, help: false } } : parseArgs({
  allowPositionals: true,
  options: { json: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } }
})

const table = (rows: ReadonlyArray<WalletRow>) => {
  const head = ["ADDRESS", "LABEL", "COHORT", "SOURCE", "ACTIVE"]
  const cells = rows.map((r) => [r.address, r.label, r.cohort, r.source, r.active ? "yes" : "no"])
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const line = (c: ReadonlyArray<string>) => c.map((x, i) => x.padEnd(widths[i]!)).join("  ").trimEnd()
  const active = rows.filter((r) => r.active).length
  return [line(head), ...cells.map(line), `${rows.length} wallet(s), ${active} active`].join("\n")
}

const print = (text: string) => Effect.sync(() => console.log(text))

const command = Effect.gen(function* () {
  const repo = yield* ChainRepo
  const [verb, file, ...rest] = positionals
  if (values.help || rest.length > 0) return yield* Effect.sync(() => console.error(USAGE))
  if (verb === "list" && file === undefined) {
    const rows = yield* repo.listWallets
    return yield* print(values.json ? JSON.stringify(rows) : table(rows))
  }
  if (verb === "import" && file !== undefined) {
    const wallets = yield* readWalletFile(file)
    const { added, updated } = yield* repo.importWallets(wallets)
    return yield* print(values.json
      ? JSON.stringify({ file, wallets: wallets.length, added, updated })
      : `imported ${wallets.length} wallet(s) from ${file}: ${added} added, ${updated} already tracked (updated)`)
  }
  yield* Effect.sync(() => {
    console.error(USAGE)
    process.exitCode = 2
  })
})

const program = command.pipe(
  Effect.catchTag("WalletFileError", (e) =>
    Effect.sync(() => {
      console.error(`error: ${e.file} was not imported (nothing was written):`)
      for (const p of e.problems) console.error(`  ${p}`)
      process.exitCode = 1
    })
  )
)

const Live = ChainRepo.Default.pipe(
  Layer.provideMerge(SqlLive()),
  Layer.provideMerge(AppConfig.Default),
  Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning))
)

if (identityVerb) runWalletIdentity()
else if (candidatesVerb) runWalletCandidates()
else NodeRuntime.runMain(program.pipe(Effect.provide(Live)), { disablePrettyLogger: true })
