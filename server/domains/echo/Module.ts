/**
 * Echo, the copy-trading simulator: its services (config slice, repos, the write path, reads, market side,
 * settings), its routes (the API and the gated /echo page) and its error map. Commands on `echo.cmd` and auto-copies
 * from `chain.tx` are the echo-portfolio and echo-watch actors' (actors/echo-portfolio). The live valuation goes to
 * the platform's `user:<id>` topic (stream `console.user`, kind `echo`).
 */
import { Effect, Layer } from "effect"
import type { AuthGuards } from "../accounts/Guards"
import type { AnyRoute } from "../../platform/http/Route"
import { defineModule } from "../../platform/Module"
import { EchoBatch } from "./Batch"
import { EchoBook } from "./Book"
import { EchoConfig } from "./Config"
import { Echo } from "./Echo"
import { EchoErrors } from "./Errors"
import { EchoRoutes } from "./Http"
import { EchoMarket } from "./Market"
import { MarketRepo } from "./MarketRepo"
import { EchoPageRoutes } from "./Page"
import { EchoRelay } from "./Relay"
import { EchoRepo } from "./Repo"
import { EchoSettings } from "./Settings"

// The batched write path of the echo-portfolio actor's trades sits on the one-at-a-time book (pricing, pushes).
const Core = EchoBatch.Default.pipe(Layer.provideMerge(Layer.mergeAll(EchoBook.Default, EchoRepo.Default, MarketRepo.Default)))

export const EchoLive = Layer.mergeAll(Echo.Default, EchoMarket.Default, EchoSettings.Default, EchoRelay.Default).pipe(
  Layer.provideMerge(Core),
  Layer.provideMerge(EchoConfig.Default)
)

export const EchoModule = defineModule({
  name: "echo",
  config: EchoConfig.Default,
  layer: EchoLive,
  routes: Effect.map(Effect.all([EchoRoutes, EchoPageRoutes]), ([api, page]) => [...api, ...page]) as Effect.Effect<
    ReadonlyArray<AnyRoute>, never, AuthGuards | EchoBook | EchoRelay | Echo | EchoMarket | EchoSettings>,
  // Every process: the settings' gate reads its own memory.
  processes: [{ name: "echo-settings", run: Effect.flatMap(EchoSettings, (s) => s.follow) }],
  errors: EchoErrors
})
