/**
 * Echo, the copy-trading simulator: its services (config slice, repos, the write path, reads, market side,
 * settings, the actor's per-user entities), its routes (the API and the gated /echo page), its two actors
 * (echo-portfolio on `echo.cmd`, echo-watch on `chain.tx`) and its error map. The live valuation goes to the
 * platform's `user:<id>` topic (stream `console.user`, kind `echo`).
 */
import { Effect, Layer } from "effect"
import type { ActorDef } from "../../platform/actors/Actor"
import type { Bus } from "../../platform/infra/Bus"
import type { AuthGuards } from "../accounts/Guards"
import { EchoPortfolioActor, EchoWatchActor } from "../../../actors/echo-portfolio/Behaviour"
import { EchoEntities } from "../../../actors/echo-portfolio/Entities"
import type { AnyRoute } from "../../platform/http/Route"
import { defineModule } from "../../platform/Module"
import { EchoBook } from "./Book"
import { EchoConfig } from "./Config"
import { Echo } from "./Echo"
import { EchoErrors } from "./Errors"
import { EchoRoutes } from "./Http"
import { EchoMarket } from "./Market"
import { MarketRepo } from "./MarketRepo"
import { EchoPageRoutes } from "./Page"
import { EchoRepo } from "./Repo"
import { EchoSettings } from "./Settings"

const Core = Layer.mergeAll(EchoBook.Default, EchoRepo.Default, MarketRepo.Default)

export const EchoLive = Layer.mergeAll(Echo.Default, EchoMarket.Default, EchoSettings.Default, EchoEntities.Default).pipe(
  Layer.provideMerge(Core),
  Layer.provideMerge(EchoConfig.Default)
)

export const EchoModule = defineModule({
  name: "echo",
  config: EchoConfig.Default,
  layer: EchoLive,
  routes: Effect.map(Effect.all([EchoRoutes, EchoPageRoutes]), ([api, page]) => [...api, ...page]) as Effect.Effect<
    ReadonlyArray<AnyRoute>, never, AuthGuards | EchoBook | Echo | EchoMarket | EchoSettings>,
  actors: [EchoPortfolioActor, EchoWatchActor] as ReadonlyArray<ActorDef<EchoRepo | EchoBook | EchoEntities | Bus>>,
  // Every process: the settings' gate reads its own memory.
  processes: [{ name: "echo-settings", run: Effect.flatMap(EchoSettings, (s) => s.follow) }],
  errors: EchoErrors
})
