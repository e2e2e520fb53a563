/**
 * Operator commands:
 *   npm run admin -- create-user --email E --password P [--tier T] [--admin]
 *   npm run admin -- set-tier --email E --tier T        (an operator grant; `free` removes the grant)
 *   npm run admin -- list-users [--json] [--limit N]
 * Uses DATABASE_URL, or the embedded database under DATA_DIR — stop an embedded server first: its database
 * belongs to one process at a time.
 */
import { parseArgs } from "node:util"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { AccountsConfig } from "../domains/accounts/Config"
import { createUser, formatUsers, InvalidInput, listUsers, setTier } from "../domains/accounts/AdminCommands"
import type { AccountExists, AccountNotFound } from "../domains/accounts/Errors"
import { Entitlements } from "../domains/accounts/Entitlements"
import { AccountsRepo } from "../domains/accounts/Repo"
import { AppConfig } from "../platform/Config"
import { SqlLive } from "../platform/infra/Sql"

const USAGE = `usage:
  npm run admin -- create-user --email E --password P [--tier T] [--admin]
  npm run admin -- set-tier --email E --tier T
  npm run admin -- list-users [--json] [--limit N]`

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    email: { type: "string" },
    password: { type: "string" },
    tier: { type: "string" },
    admin: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    limit: { type: "string" }
  }
})

const print = (value: unknown) => Effect.sync(() => console.log(values.json ? JSON.stringify(value) : value))

const command: Effect.Effect<void, AccountExists | AccountNotFound | InvalidInput, AccountsRepo | Entitlements | AccountsConfig> = (() => {
  switch (positionals[0]) {
    case "create-user":
      return createUser(values).pipe(Effect.flatMap((u) => print(values.json ? u : `created user ${u.id} ${u.email} (tier ${u.tier}${u.admin ? ", admin" : ""})`)))
    case "set-tier":
      return setTier(values).pipe(Effect.flatMap((u) => print(values.json ? u : `user ${u.id} ${u.email}: granted ${u.granted}; effective tier ${u.tier}`)))
    case "list-users":
      return listUsers(values.limit ? Number(values.limit) : undefined).pipe(Effect.flatMap((users) => print(values.json ? users : formatUsers(users))))
    default:
      return Effect.sync(() => {
        console.error(USAGE)
        process.exitCode = 2
      })
  }
})()

const failed = (message: string) =>
  Effect.sync(() => {
    console.error(`error: ${message}`)
    process.exitCode = 1
  })

const program = command.pipe(
  Effect.catchTags({
    AccountExists: (e) => failed(`an account with e-mail ${e.email} exists already`),
    AccountNotFound: (e) => failed(`no account with e-mail ${e.email}`)
  }),
  Effect.catchTag("InvalidInput", (e) => failed(e.message))
)

const Live = Layer.mergeAll(AccountsConfig.Default, AccountsRepo.Default, Entitlements.Default).pipe(
  Layer.provideMerge(SqlLive()),
  Layer.provideMerge(AppConfig.Default),
  Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning))
)

NodeRuntime.runMain(program.pipe(Effect.provide(Live)), { disablePrettyLogger: true })
