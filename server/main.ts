/** The program: start the roles chosen by WHALE_ROLES (default all) on the configured services; Ctrl-C stops it. */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppLive } from "./App"

NodeRuntime.runMain(Layer.launch(AppLive).pipe(Effect.tapErrorCause(Effect.logError)), { disablePrettyLogger: true })
