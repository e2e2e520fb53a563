/**
 * The ingest session's tracked wallets: a wallet added while a session opens (between its read of the wallet table
 * and of the table's signature) is picked up at the next refresh, not missed for the session's whole life.
 */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { ChainCatalog } from "../../server/domains/chain/Catalog"
import { ChainRepo } from "../../server/domains/chain/Repo"

const W1 = "0x1111111111111111111111111111111111111111"
const W2 = "0x2222222222222222222222222222222222222222"

/** The wallet table, with W2 committed right after the session's first read of it; anything else fails loudly. */
const racingRepo = () => {
  const table = [{ address: W1, label: "one" }]
  let reads = 0
  const implemented: Partial<Record<keyof ChainRepo, unknown>> = {
    labels: Effect.succeed([]),
    tokens: Effect.succeed([]),
    listWallets: Effect.sync(() => table.map((w) => ({ ...w, cohort: "mid" as const, source: "custom" as const, active: true }))),
    activeWallets: Effect.sync(() => {
      const rows = [...table]
      if (reads++ === 0) table.push({ address: W2, label: "two" })
      return rows
    }),
    walletsSignature: Effect.sync(() => table.map((w) => w.address).join(","))
  }
  return ChainRepo.make(new Proxy(implemented, {
    get: (target, name) => {
      if (name in target) return target[name as keyof ChainRepo]
      throw new Error(`ChainRepo.${String(name)} was not expected`)
    }
  }) as ChainRepo)
}

describe("ingest session wallets", () => {
  it("a wallet added while the session opens is loaded at the next refresh", async () => {
    const layer = ChainCatalog.DefaultWithoutDependencies.pipe(Layer.provide(Layer.succeed(ChainRepo, racingRepo())))
    const result = await Effect.runPromise(Effect.gen(function* () {
      const session = yield* (yield* ChainCatalog).open()
      const before = session.walletCount()
      const reloaded = yield* session.refreshWallets
      return { before, reloaded, label: session.walletLabel(W2) }
    }).pipe(Effect.provide(layer)))
    expect(result).toEqual({ before: 1, reloaded: true, label: "two" })
  })
})
