/**
 * Chain ingestion: the source (rpc, replay or demo), the whale records it stores, the block listener, and on the
 * demo chain the generated history a first start stores in the background.
 */
import { Layer } from "effect"
import { BlockListenerActor } from "../../../actors/block-listener/Behaviour"
import { DemoHistoryActor } from "../../../actors/demo-history/Behaviour"
import type { ActorDef } from "../../../actors/runtime/Actor"
import type { Bus } from "../../platform/infra/Bus"
import type { Metrics } from "../../platform/ops/Metrics"
import { defineModule } from "../../platform/Module"
import { ChainBlockTaps } from "./BlockTaps"
import { ChainCatalogSeeded } from "./Catalog"
import { Chain } from "./Chain"
import { ChainConfig } from "./Config"
import { ChainWallets } from "./ChainWallets"
import { DemoHistory } from "./demo/DemoHistory"
import { DemoHistoryRepo } from "./demo/HistoryRepo"
import { ChainListener } from "./Listener"
import { ChainRepo } from "./Repo"
import { ChainSourceLive } from "./SourceLive"

/** What the chain's actors may use: the module's own services (its config slice among them), the bus and the metrics. */
type ActorServices = Layer.Layer.Success<typeof layer> | Bus | Metrics
const layer = Layer.mergeAll(
  ChainConfig.Default, ChainSourceLive, ChainRepo.Default, Chain.Default.pipe(Layer.provide(ChainSourceLive)), ChainWallets.Default, ChainCatalogSeeded,
  ChainBlockTaps.Default,
  ChainListener.Default.pipe(Layer.provide(Layer.mergeAll(ChainConfig.Default, ChainSourceLive, ChainRepo.Default, ChainCatalogSeeded, ChainBlockTaps.Default))),
  DemoHistoryRepo.Default, DemoHistory.Default)
const actors: ReadonlyArray<ActorDef<ActorServices>> = [BlockListenerActor, DemoHistoryActor]

export const ChainModule = defineModule({
  name: "chain",
  config: ChainConfig.Default,
  layer,
  actors
})
