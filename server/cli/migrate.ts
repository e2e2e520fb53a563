/** `npm run migrate`: apply pending migrations to DATABASE_URL (or the embedded database) and exit. */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppConfig } from "../platform/Config"
import { migrate } from "../platform/infra/Migrator"
import { SqlLive } from "../platform/infra/Sql"

const program = migrate.pipe(
  Effect.tap((applied) => Effect.logInfo(applied.length === 0 ? "database is up to date" : `applied ${applied.length} migration(s)`))
)

NodeRuntime.runMain(program.pipe(Effect.provide(SqlLive({ migrate: false }).pipe(Layer.provide(AppConfig.Default)))))
