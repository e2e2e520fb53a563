/**
 * Wallet identity for operators (issue 28), reached through `npm run wallets -- …`:
 *   classify --from N --to M [--json] [--dry-run]   classify every address that took part in a DEX swap or a token
 *        transfer in blocks N..M (read over ETH_RPC_URL, or CHAIN_SOURCE=replay): one line per address; --json prints
 *        {"address","kind","class","reasons","label","label_source","confidence"} per line. Without --dry-run the
 *        identities are stored (as the listener stores them); with it nothing is written (stored corrections and
 *        evidence are still read when a database is there).
 *   identity set ADDRESS class CLASS [--exchange NAME] --reason TEXT     an operator's class (wins over every rule)
 *   identity set ADDRESS label TEXT --reason TEXT                        an operator's label
 *   identity unset ADDRESS class [CLASS] --reason TEXT                   rule CLASS out (none: drop the operator's class)
 *   identity unset ADDRESS label --reason TEXT                           show no label (hides file and seed labels)
 *   identity show ADDRESS [--json]                                       identity, reasons, evidence, corrections
 */
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import type { IdentityLine } from "../../schema/identity"
import { ChainConfig } from "../domains/chain/Config"
import { ChainSourceLive } from "../domains/chain/SourceLive"
import { ChainSource } from "../domains/chain/Source"
import { loadReference } from "../domains/chain/Reference"
import { ChainWallets } from "../domains/chain/ChainWallets"
import { IdentityBook } from "../domains/identity/Book"
import { observeBlock, type EngineDeps } from "../domains/identity/Engine"
import { loadLabelBook } from "../domains/identity/Labels"
import { IdentityRepo } from "../domains/identity/Repo"
import type { Correction, Identity } from "../domains/identity/Types"
import { correctionStates, WalletIdentity } from "../domains/identity/WalletIdentity"
import { AppConfig } from "../platform/Config"
import { SqlLive } from "../platform/infra/Sql"

const USAGE = `usage:
  npm run -s wallets -- classify --from N --to M [--json] [--dry-run]
  npm run wallets -- identity set ADDRESS class CLASS [--exchange NAME] --reason TEXT
  npm run wallets -- identity set ADDRESS label TEXT --reason TEXT
  npm run wallets -- identity unset ADDRESS class [CLASS] --reason TEXT
  npm run wallets -- identity unset ADDRESS label --reason TEXT
  npm run wallets -- identity show ADDRESS [--json]`

const parse = () => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        from: { type: "string" }, to: { type: "string" }, json: { type: "boolean", default: false },
        "dry-run": { type: "boolean", default: false }, reason: { type: "string" }, exchange: { type: "string" },
        operator: { type: "string" }
      }
    })
  } catch (e) {
    console.error(`error: ${(e as Error).message}\n${USAGE}`)
    process.exit(2)
  }
}
/** The command line, parsed when the command runs (wallets.ts imports this file for every verb). */
let { positionals, values } = { positionals: [] as Array<string>, values: {} as ReturnType<typeof parse>["values"] }

const usage = (problem: string) =>
  Effect.sync(() => {
    console.error(`error: ${problem}\n${USAGE}`)
    process.exitCode = 2
  })

const write = (text: string) =>
  Effect.async<void>((resume) => {
    if (process.stdout.write(text)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

export const lineOf = (i: Identity): IdentityLine => ({
  address: i.address, kind: i.kind, class: i.class, reasons: [...i.reasons], label: i.label, label_source: i.labelSource, confidence: i.confidence
})
const textOf = (i: Identity) =>
  `${i.address}  ${i.class.padEnd(12)} ${i.confidence.toFixed(2)}  ${i.kind.padEnd(8)} ${i.label ?? "-"}${i.labelSource ? ` (${i.labelSource})` : ""}  — ${i.reasons[0] ?? "no evidence"}`

/** Whether a database is there to read (a dry run never creates one). */
const databaseThere = () => {
  if (process.env.DATABASE_URL) return true
  const dir = process.env.EMBEDDED_DB_DIR ?? join(resolve(process.env.DATA_DIR ?? "./var"), "pglite")
  return !dir.startsWith("memory://") && existsSync(dir)
}

type StoreDeps = Pick<EngineDeps, "load" | "store">

const classify = <R>(from: number, to: number, dryRun: boolean, prepare: (book: IdentityBook) => Effect.Effect<StoreDeps, never, R>) =>
  Effect.gen(function* () {
    const source = yield* ChainSource
    const book = new IdentityBook(loadLabelBook())
    const seed = loadReference().wallets
    book.setTracked(new Map(seed.map((w) => [w.address, { label: w.label, source: w.source }])))
    const deps = yield* prepare(book)
    const met = new Set<string>()
    const counts = { sandwiches: 0, arbitrages: 0 }
    for (let n = from; n <= to; n++) {
      const block = yield* source.getBlock(n)
      const logs = yield* source.getLogs({ fromBlock: n, toBlock: n })
      const { observed } = yield* observeBlock({ book, ...deps, ...(source.getCodes ? { getCodes: source.getCodes } : {}) }, block, logs)
      for (const a of observed.met) met.add(a)
      counts.sandwiches += observed.sandwiches.length
      counts.arbitrages += observed.arbitrages.length
    }
    const identities = [...met].sort().map((a) => book.resolve(a))
    yield* write(identities.map((i) => `${values.json ? JSON.stringify(lineOf(i)) : textOf(i)}\n`).join(""))
    const byClass = new Map<string, number>()
    for (const i of identities) byClass.set(i.class, (byClass.get(i.class) ?? 0) + 1)
    console.error(`classified ${identities.length} addresses in blocks ${from}–${to}: ${[...byClass].map(([c, k]) => `${k} ${c}`).join(", ")}; ` +
      `${counts.sandwiches} sandwich(es), ${counts.arbitrages} arbitrage(s); ${dryRun ? "dry run, nothing written" : "stored"}`)
  })

/** The stored tracked wallets, corrections and evidence; storing too unless it is a dry run. */
const databaseDeps = (dryRun: boolean) => (book: IdentityBook) =>
  Effect.gen(function* () {
    const repo = yield* IdentityRepo
    const wallets = yield* ChainWallets
    if (!(yield* repo.hasTables)) return {} satisfies StoreDeps
    book.setTracked(new Map((yield* wallets.tracked).map((w) => [w.address, { label: w.label, source: w.source }])))
    book.setCorrections(correctionStates(yield* repo.corrections))
    return (dryRun ? { load: repo.load } : { load: repo.load, store: repo.store }) satisfies StoreDeps
  })

const correctionOf = (): Correction | string => {
  const [, action, address, field, value] = positionals
  if ((action !== "set" && action !== "unset") || address === undefined || (field !== "class" && field !== "label")) return "identity set|unset ADDRESS class|label …"
  if (positionals.length > 5) return "too many arguments (quote a label with spaces)"
  if (values.reason === undefined) return "--reason is required"
  if (field === "label" && action === "unset" && value !== undefined) return "unset … label takes no value"
  return { address, action, field, value: value ?? null, exchange: values.exchange ?? null, reason: values.reason }
}

const identityCommand = Effect.gen(function* () {
  const identity = yield* WalletIdentity
  const verb = positionals[1]
  if (verb === "show" && positionals[2] !== undefined && positionals.length === 3) {
    const view = yield* identity.identityOf(positionals[2])
    const history = yield* identity.history(view.address)
    if (values.json) return yield* write(`${JSON.stringify({ ...lineOf(view), exchange: view.exchange, first_block: view.firstBlock, last_block: view.lastBlock, evidence: view.evidence, corrections: view.corrections, history })}\n`)
    const lines = [textOf(view), ...view.reasons.map((r) => `  - ${r}`), ...view.corrections.map((c) => `  correction #${c.id} ${c.action} ${c.field} ${c.value ?? ""} by ${c.operator ?? "?"}: ${c.reason}`)]
    return yield* write(`${lines.join("\n")}\n`)
  }
  const correction = correctionOf()
  if (typeof correction === "string") return yield* usage(correction)
  const after = yield* identity.correct(correction, values.operator ?? process.env.USER ?? null)
  yield* write(`${values.json ? JSON.stringify(lineOf(after)) : textOf(after)}\n`)
}).pipe(Effect.catchTag("InvalidCorrection", (e) => Effect.sync(() => {
  console.error(`error: ${e.message}`)
  process.exitCode = 1
})))

const quiet = Logger.minimumLogLevel(LogLevel.Warning)
const stderrLogs = Layer.mergeAll(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)), quiet)
const database = (migrate: boolean) => Layer.mergeAll(IdentityRepo.Default, ChainWallets.Default).pipe(
  Layer.provideMerge(SqlLive({ migrate })), Layer.provideMerge(AppConfig.Default))

const main = Effect.gen(function* () {
  if (positionals[0] === "identity") {
    return yield* identityCommand.pipe(Effect.provide(WalletIdentity.Default.pipe(Layer.provideMerge(database(true)))))
  }
  const [from, to] = [values.from, values.to].map((v) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : NaN))
  if (positionals.length !== 1 || !Number.isInteger(from) || !Number.isInteger(to) || from! > to!) return yield* usage("classify needs --from N --to M (N ≤ M)")
  const chain = yield* ChainConfig
  if (chain.source === "demo" && !chain.sourceExplicit) return yield* usage("ETH_RPC_URL is not set: classify reads a real chain")
  const dryRun = values["dry-run"]
  if (!dryRun || databaseThere()) {
    return yield* classify(from!, to!, dryRun, databaseDeps(dryRun)).pipe(Effect.provide(ChainSourceLive), Effect.provide(database(!dryRun)))
  }
  yield* classify(from!, to!, dryRun, () => Effect.succeed({})).pipe(Effect.provide(ChainSourceLive))
}).pipe(
  Effect.catchTags({
    RpcError: (e) => Effect.sync(() => { console.error(`error: ${e.method}: ${e.message}`); process.exitCode = 1 }),
    BlockNotFound: (e) => Effect.sync(() => { console.error(`error: block ${e.number} was not found`); process.exitCode = 1 })
  }),
  Effect.provide(ChainConfig.Default),
  Effect.provide(stderrLogs)
)

export const runWalletIdentity = () => {
  ({ positionals, values } = parse())
  NodeRuntime.runMain(main, { disablePrettyLogger: true })
}
