/**
 * The app's `ChainSource`, chosen by configuration: `rpc` with ETH_RPC_URL, else the `demo` chain (DEMO DATA,
 * the embedded default), or `replay` of an ethereum-etl folder when CHAIN_SOURCE=replay.
 */
import { Effect, Layer } from "effect"
import { AppConfig } from "../Config.js"
import { DemoSourceLive } from "./DemoSource.js"
import { ReplaySourceLive } from "./ReplaySource.js"
import { RpcSourceLive } from "./RpcSource.js"

export const ChainSourceLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const { chain } = yield* AppConfig
    switch (chain.source) {
      case "rpc":
        return RpcSourceLive({ url: chain.rpcUrl! })
      case "replay":
        return ReplaySourceLive({ dir: chain.replayDir! })
      case "demo":
        yield* Effect.logInfo("no ETH_RPC_URL: following the demo chain (records are flagged source=demo)")
        return DemoSourceLive({ seed: chain.demoSeed, blockMs: chain.demoBlockMs })
    }
  })
)
