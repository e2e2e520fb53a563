/**
 * Whale discovery's queue for operators (issue 28 part 4), reached through `npm run wallets -- candidates …`:
 *   candidates [--status pending|joined|below|rejected|left] [--json]   the queue, pending first, largest move first
 *   candidates approve ADDRESS [--operator NAME]                         join the tracked set (room permitting)
 *   candidates reject ADDRESS --reason TEXT [--operator NAME]            never a candidate again (leaves if it had joined)
 * The admin console's corrections page does the same (server/domains/identity/Http.ts).
 */
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { WhaleDiscovery, type CandidateRow, type CandidateStatus } from "../domains/identity/Discovery"
import { WalletIdentity } from "../domains/identity/WalletIdentity"
import { AppConfig } from "../platform/Config"
import { SqlLive } from "../platform/infra/Sql"

const USAGE = `usage:
  npm run wallets -- candidates [--status pending|joined|below|rejected|left] [--json]
  npm run wallets -- candidates approve ADDRESS [--operator NAME]
  npm run wallets -- candidates reject ADDRESS --reason TEXT [--operator NAME]`
const STATUSES = ["pending", "joined", "below", "rejected", "left"] as const

const table = (rows: ReadonlyArray<CandidateRow>) => {
  const head = ["ADDRESS", "STATUS", "COHORT", "REASON", "NOTE"]
  const cells = rows.map((r) => [r.address, r.status, r.cohort ?? "-", r.reason, r.note ?? ""])
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const line = (c: ReadonlyArray<string>) => c.map((x, i) => x.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(head), ...cells.map(line), `${rows.length} candidate(s), ${rows.filter((r) => r.status === "pending").length} pending`].join("\n")
}

export const runWalletCandidates = () => {
  let parsed
  try {
    parsed = parseArgs({ args: process.argv.slice(3), allowPositionals: true, options: {
      status: { type: "string" }, json: { type: "boolean", default: false }, reason: { type: "string" }, operator: { type: "string" } } })
  } catch (e) {
    console.error(`error: ${(e as Error).message}\n${USAGE}`)
    process.exit(2)
  }
  const { positionals, values } = parsed
  const fail = (message: string) => Effect.sync(() => {
    console.error(`error: ${message}\n${USAGE}`)
    process.exitCode = 2
  })
  const operator = values.operator ?? process.env.USER ?? null
  const command = Effect.gen(function* () {
    const discovery = yield* WhaleDiscovery
    const [verb, address, ...rest] = positionals
    if (rest.length > 0) return yield* fail("too many arguments")
    if (verb === undefined) {
      const status = values.status ?? null
      if (status !== null && !(STATUSES as ReadonlyArray<string>).includes(status)) return yield* fail(`unknown status ${status}`)
      const rows = yield* discovery.candidates(status as CandidateStatus | null, 1_000)
      return yield* Effect.sync(() => console.log(values.json ? rows.map((r) => JSON.stringify(r)).join("\n") : table(rows)))
    }
    if (address === undefined || !/^0x[0-9a-fA-F]{40}$/.test(address)) return yield* fail("an address is needed")
    if (verb === "approve") {
      const r = yield* discovery.approve(address, operator)
      return yield* Effect.sync(() => console.log(`${r.address} joined the tracked set (${r.cohort}): ${r.reason}`))
    }
    if (verb === "reject") {
      if (values.reason === undefined || values.reason.trim() === "") return yield* fail("reject needs --reason")
      const r = yield* discovery.reject(address, operator, values.reason)
      return yield* Effect.sync(() => console.log(`${r.address} rejected: ${r.note}`))
    }
    return yield* fail(`unknown verb ${verb}`)
  }).pipe(
    Effect.catchTags({
      CandidateNotFound: (e) => Effect.sync(() => { console.error(`error: ${e.address} is not in the discovery queue`); process.exitCode = 1 }),
      CandidateRefused: (e) => Effect.sync(() => { console.error(`error: ${e.message}`); process.exitCode = 1 })
    })
  )
  const Live = WhaleDiscovery.Default.pipe(Layer.provideMerge(WalletIdentity.Default), Layer.provideMerge(SqlLive()),
    Layer.provideMerge(AppConfig.Default), Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning)))
  NodeRuntime.runMain(command.pipe(Effect.provide(Live)), { disablePrettyLogger: true })
}
