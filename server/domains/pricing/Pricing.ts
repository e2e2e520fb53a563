/** Public prices and feature gates, read from the `tiers` table and kept a few seconds in memory. */
import { Effect } from "effect"
import type { PricingResponse } from "../../../schema/http/pricing"
import { memo } from "../../platform/infra/Memo"
import { PricingRepo } from "./Repo"

export class Pricing extends Effect.Service<Pricing>()("app/Pricing", {
  dependencies: [PricingRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* PricingRepo
    const cache = yield* memo({
      ttl: "5 seconds",
      // Prices change by migration: serve the last document while one refresh runs, so hits stay synchronous.
      maxStale: "10 minutes",
      capacity: 1,
      compute: (_: "all") =>
        repo.publicTiers.pipe(
          Effect.map((tiers) => {
            const body: PricingResponse = { currency: "USD", tiers: [...tiers] }
            const json = JSON.stringify(body)
            return { body, json, bytes: Buffer.from(json) }
          })
        )
    })
    return {
      /** The pricing document, its serialised JSON and that as UTF-8 (served as-is). */
      current: () => cache.get("all"),
      /** The same without Effect when it can be served now (see `memo.peek`). */
      peek: () => cache.peek("all")
    } as const
  })
}) {}
