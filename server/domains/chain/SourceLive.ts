/**
 * The app's `ChainSource`, chosen by configuration: `rpc` with ETH_RPC_URL, else the `demo` chain (DEMO DATA,
 * the embedded default), or `replay` of an ethereum-etl folder when CHAIN_SOURCE=replay.
 */
import { Effect, Layer } from "effect"
import { ChainConfig } from "./Config"
import { DemoSourceLive } from "./DemoSource"
import { ReplaySourceLive } from "./ReplaySource"
import { RpcSourceLive } from "./RpcSource"

export const ChainSourceLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const chain = yield* ChainConfig
    switch (chain.source) {
      case "rpc":
        return RpcSourceLive({ url: chain.rpcUrl!, traces: chain.traces })
      case "replay":
        return ReplaySourceLive({ dir: chain.replayDir! })
      case "demo":
        yield* Effect.logInfo("no ETH_RPC_URL: following the demo chain (records are flagged source=demo)")
        return DemoSourceLive({ seed: chain.demoSeed, blockMs: chain.demoBlockMs })
    }
  })
).pipe(Layer.provide(ChainConfig.Default))
