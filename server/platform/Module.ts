/**
 * What a domain (or a gateway) brings to the program. `server/App.ts` is an ordered list of modules plus the
 * platform; adding a domain is its folder, its migration, one line there and one in the console's route list.
 * Actors are not a module's: they are the layer above the domains, listed in `actors/index.ts`.
 *
 *   export const AlertsModule = defineModule({
 *     name: "alerts",
 *     layer: Layer.mergeAll(Alerts.Default, AlertsConfig.Default),   // its services (with their dependencies)
 *     routes: AlertRoutes,                                            // built once in the `http` role
 *     processes: [MessengerBotProcess],                               // long-lived fibers, by role
 *     topics: [],                                                     // WebSocket topics, each with its own gate
 *     errors: AlertErrors,                                            // its tagged errors → HTTP (Errors.ts)
 *     tokenKinds: ["alerts_unsubscribe"]                              // the signed-token kinds it mints
 *   })
 *
 * A module's settings are its own `Effect.Service` reading `Config.*` (`<Domain>Config` in its `Config.ts`), part
 * of its layer; the platform's are `AppConfig` (server/platform/Config.ts). A module that names its slice in
 * `config` has it read at start right after `AppConfig`, before the database is opened, so a bad value stops the
 * start at once with a message naming the variable.
 */
import type { ConfigError, Effect, Layer } from "effect"
import type uWS from "uWebSockets.js"
import type { Role } from "./Config"
import type { ErrorMap } from "./http/Errors"
import type { AnyRoute } from "./http/Route"
import type { TopicDef } from "./ws/Topics"

/**
 * A long-lived fiber a module runs (a flusher, a watchdog, a listener), named so App and the logs show it. It may
 * use any service of the modules (all are built before processes start).
 */
export interface Process {
  readonly name: string
  /** Roles whose processes run it (default: every process). */
  readonly roles?: ReadonlyArray<Role>
  /** Runs until interrupted; forked in the program's scope. */
  readonly run: Effect.Effect<void, never, any>
}

export interface Module<L extends Layer.Layer.Any = Layer.Layer.Any, RR = any> {
  readonly name: string
  /** The module's services, built once for every role. */
  readonly layer?: L
  /** Its config slice (`<Domain>Config.Default`), also part of `layer`: read and checked before the platform starts. */
  readonly config?: Layer.Layer<any, ConfigError.ConfigError>
  /** Routes served in the `http` role, built once (they close over the services). */
  readonly routes?: Effect.Effect<ReadonlyArray<AnyRoute>, never, RR>
  /** Long-lived fibers outside the actor system. */
  readonly processes?: ReadonlyArray<Process>
  /**
   * WebSocket endpoints of its own beside the hub's `/ws` (the keyed feed), built in the `http` role: each registers
   * itself on the uWS app; built before the server, so its finalizer runs after HTTP stopped listening.
   */
  readonly sockets?: ReadonlyArray<Effect.Effect<(app: uWS.TemplatedApp) => void, never, any>>
  /** WebSocket topics, each with its source stream and its own access gate. */
  readonly topics?: ReadonlyArray<TopicDef>
  /** How its tagged errors answer over HTTP. */
  readonly errors?: ErrorMap
  /** Kinds of signed tokens it mints (each gets its own key; two modules may not share one). */
  readonly tokenKinds?: ReadonlyArray<string>
}

/** Keeps a module's literal type (so App can check that every route's services are provided). */
export const defineModule = <const L extends Layer.Layer.Any = Layer.Layer<never>, RR = never>(
  module: Module<L, RR>
): Module<L, RR> => module
