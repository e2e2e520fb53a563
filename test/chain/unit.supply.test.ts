/**
 * `Chain.totalSupply`: the chain source's totalSupply() scaled by the token's decimals, read once per token per
 * hour, and a reason (never a number) when the source holds no state, the decimals are unknown, the token reverts
 * or the node does not answer.
 */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { Chain } from "../../server/domains/chain/Chain"
import { ChainReadRepo } from "../../server/domains/chain/ReadRepo"
import { ChainRepo } from "../../server/domains/chain/Repo"
import { ChainSource, RpcError, type ChainSourceShape } from "../../server/domains/chain/Source"
import { stub } from "../support/stub"

const TOKEN = "0x1f9840a85d5af5b5bf2ae6b5ab6cb2a2e6a5d9b5"
const run = <A>(source: Partial<ChainSourceShape>, decimals: number | null, f: (c: Chain) => Effect.Effect<A>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(Chain, f)).pipe(
    Effect.provide(Chain.DefaultWithoutDependencies.pipe(
      Layer.provide(Layer.mergeAll(stub(ChainSource, source as ChainSourceShape), stub(ChainRepo, { tokenDecimals: () => Effect.succeed(decimals) }), stub(ChainReadRepo, {})))))))

describe("Chain.totalSupply", () => {
  it("scales the raw supply by the decimals and reads it once while cached", async () => {
    let calls = 0
    const source = { kind: "rpc" as const, readTotalSupply: () => Effect.sync(() => { calls++; return 1_234_500_000_000_000_000_000n }) }
    const [a, b] = await run(source, 18, (c) => Effect.all([c.totalSupply(TOKEN), c.totalSupply(TOKEN.toUpperCase().replace("0X", "0x"))]))
    expect(a).toEqual({ supply: 1234.5 })
    expect(b).toEqual(a)
    expect(calls).toBe(1)
  })

  it("gives a reason instead of a number when the supply cannot be known", async () => {
    expect(await run({ kind: "demo" }, 18, (c) => c.totalSupply(TOKEN))).toMatchObject({ reason: expect.stringMatching(/demo chain source/) })
    expect(await run({ kind: "rpc", readTotalSupply: () => Effect.succeed(10n) }, null, (c) => c.totalSupply(TOKEN))).toMatchObject({ reason: expect.stringMatching(/decimals/) })
    expect(await run({ kind: "rpc", readTotalSupply: () => Effect.succeed(null) }, 6, (c) => c.totalSupply(TOKEN))).toMatchObject({ reason: expect.stringMatching(/does not answer/) })
    const down = { kind: "rpc" as const, readTotalSupply: () => Effect.fail(new RpcError({ method: "eth_call", message: "bad request", retryable: false })) }
    expect(await run(down, 6, (c) => c.totalSupply(TOKEN))).toMatchObject({ reason: expect.stringMatching(/did not answer.*bad request/) })
  })
})
