/**
 * The chain domain's public read API for other domains: which listed token a user's words name, and the latest
 * price our priced records hold. Other domains call this, never the chain's tables.
 */
import { Effect } from "effect"
import { ChainRepo } from "./Repo"

export interface NamedToken {
  readonly address: string
  readonly symbol: string
}

export class Chain extends Effect.Service<Chain>()("app/chain/Chain", {
  effect: Effect.gen(function* () {
    const repo = yield* ChainRepo
    return {
      /** Listed (not blacklisted, not unknown) tokens an address or a symbol names, best match first (at most 5). */
      tokensNamed: (query: string): Effect.Effect<ReadonlyArray<NamedToken>> => repo.tokensNamed(query),
      /** The newest recorded USD price of each token that has one. */
      lastPrices: (tokens: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, number>> =>
        Effect.forEach(tokens, (token) => Effect.map(repo.lastPrice(token), (price) => [token, price] as const), { concurrency: 4 }).pipe(
          Effect.map((pairs) => new Map(pairs.filter((p): p is readonly [string, number] => p[1] !== null))))
    } as const
  }),
  dependencies: [ChainRepo.Default]
}) {}
