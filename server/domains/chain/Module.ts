/**
 * Chain ingestion: the source (rpc, replay or demo), the whale records it stores, the listener's facade (run by the
 * block-listener actor), and on the demo chain the generated history a first start stores in the background (the
 * demo-history actor).
 */
import { Layer } from "effect"
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

const layer = Layer.mergeAll(
  ChainConfig.Default, ChainSourceLive, ChainRepo.Default, Chain.Default.pipe(Layer.provide(ChainSourceLive)), ChainWallets.Default, ChainCatalogSeeded,
  ChainBlockTaps.Default,
  ChainListener.Default.pipe(Layer.provide(Layer.mergeAll(ChainConfig.Default, ChainSourceLive, ChainRepo.Default, ChainCatalogSeeded, ChainBlockTaps.Default))),
  DemoHistoryRepo.Default, DemoHistory.Default.pipe(Layer.provide(ChainSourceLive)))

export const ChainModule = defineModule({
  name: "chain",
  config: ChainConfig.Default,
  layer
})
