import { Cause, ConfigProvider, Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { ChainConfig } from "../../server/domains/chain/Config"

const load = (env: Record<string, string>) =>
  Effect.runPromiseExit(
    ChainConfig.pipe(Effect.provide(ChainConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))))
  )

const failure = async (env: Record<string, string>) => {
  const exit = await load(env)
  expect(Exit.isFailure(exit)).toBe(true)
  return Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
}

describe("chain settings (the chain module's config slice)", () => {
  it("follows the demo chain without ETH_RPC_URL and the node with it", async () => {
    const demo = await load({})
    if (!Exit.isSuccess(demo)) throw new Error("config did not load")
    expect(demo.value.source).toBe("demo")
    expect(demo.value.sourceExplicit).toBe(false)
    expect(demo.value.pollMs).toBe(2_000)
    const rpc = await load({ ETH_RPC_URL: "http://node:8545" })
    if (!Exit.isSuccess(rpc)) throw new Error("config did not load")
    expect(rpc.value.source).toBe("rpc")
  })

  it("refuses an unknown source, and rpc or replay without what they need, naming the variable", async () => {
    expect(await failure({ CHAIN_SOURCE: "bogus" })).toContain("unknown chain source bogus")
    expect(await failure({ CHAIN_SOURCE: "rpc" })).toContain("ETH_RPC_URL")
    expect(await failure({ CHAIN_SOURCE: "replay" })).toContain("CHAIN_REPLAY_DIR")
    expect(await failure({ CHAIN_POLL_MS: "soon" })).toContain("CHAIN_POLL_MS")
  })
})
