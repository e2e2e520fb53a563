/**
 * The chain domain's public read API for other domains: which listed token a user's words name, the latest price
 * our priced records hold, a token's total supply read from the chain, and the reads of the stored records, tokens
 * and tracked wallets other domains need (ReadRepo.ts). Other domains call this, never the chain's tables or its
 * source.
 */
import { Effect, Either } from "effect"
import { memo } from "../../platform/infra/Memo"
import { ChainReadRepo, type TimeSpan } from "./ReadRepo"
import { ChainRepo } from "./Repo"
import { ChainSource, retryRpc } from "./Source"

export type { LabelledRecord, PricedPoint, SpanRecord, StoredRecord, TimeSpan, TokenFlags } from "./ReadRepo"

export interface NamedToken {
  readonly address: string
  readonly symbol: string
}

/** A token's total supply in whole tokens, or why it is not known. */
export type TotalSupply = { readonly supply: number } | { readonly reason: string }

/** Supplies change slowly: one eth_call per token per hour at most. */
const SUPPLY_TTL = "1 hour"

export class Chain extends Effect.Service<Chain>()("app/chain/Chain", {
  scoped: Effect.gen(function* () {
    const repo = yield* ChainRepo
    const reads = yield* ChainReadRepo
    const source = yield* ChainSource
    // Optional on the source (`in`: a source without it may not even be asked for it).
    const read = "readTotalSupply" in source ? source.readTotalSupply : undefined
    const supplies = yield* memo({
      ttl: SUPPLY_TTL,
      capacity: 4096,
      compute: (token: string): Effect.Effect<TotalSupply> =>
        read === undefined
          ? Effect.succeed({ reason: `the ${source.kind} chain source holds no contract state to read totalSupply from` })
          : Effect.gen(function* () {
            const decimals = yield* repo.tokenDecimals(token)
            if (decimals === null) return { reason: "the token's decimals are unknown" }
            const raw = yield* retryRpc(read(token)).pipe(Effect.either)
            if (Either.isLeft(raw)) return { reason: `the node did not answer totalSupply (${raw.left.message})` }
            if (raw.right === null) return { reason: "the token does not answer totalSupply()" }
            const unit = 10n ** BigInt(decimals)
            return { supply: Number(raw.right / unit) + Number(raw.right % unit) / Number(unit) }
          })
    })
    return {
      /** Listed (not blacklisted, not unknown) tokens an address or a symbol names, best match first (at most 5). */
      tokensNamed: (query: string): Effect.Effect<ReadonlyArray<NamedToken>> => repo.tokensNamed(query),
      /** The newest recorded USD price of each token that has one. */
      lastPrices: (tokens: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, number>> =>
        Effect.forEach(tokens, (token) => Effect.map(repo.lastPrice(token), (price) => [token, price] as const), { concurrency: 4 }).pipe(
          Effect.map((pairs) => new Map(pairs.filter((p): p is readonly [string, number] => p[1] !== null)))),
      /** totalSupply() of a listed token in whole tokens (cached an hour), or the reason it is unknown. */
      totalSupply: (token: string): Effect.Effect<TotalSupply> => supplies.get(token.toLowerCase()),
      // Stored records, tokens and tracked wallets, read for other domains (ReadRepo.ts says what each reads).
      tokenFlags: (address: string) => reads.tokenFlags(address),
      allTokenFlags: Effect.suspend(() => reads.allTokenFlags),
      tokenAddressesBySymbol: (symbols: ReadonlyArray<string>) => reads.tokenAddressesBySymbol(symbols),
      activeTrackedWallets: Effect.suspend(() => reads.activeTrackedWallets),
      latestPricedRecord: (token: string) => reads.latestPricedRecord(token),
      latestRecordedPrices: (tokens: ReadonlyArray<string>) => reads.latestRecordedPrices(tokens),
      pricedPointsFrom: (token: string, fromBlock: number, limit: number) => reads.pricedPointsFrom(token, fromBlock, limit),
      ethUsdAtBlock: (block: number | null) => reads.ethUsdAtBlock(block),
      priceCandles: (token: string, since: Date | null, bucketSeconds: number) => reads.priceCandles(token, since, bucketSeconds),
      dexRecordsOfTx: (txHash: string, log?: number, wallet?: string) => reads.dexRecordsOfTx(txHash, log, wallet),
      dexFeed: (limit: number, offset: number) => reads.dexFeed(limit, offset),
      walletDexRecords: (wallet: string, days: number, limit: number) => reads.walletDexRecords(wallet, days, limit),
      firstRecordsIn: (span: TimeSpan, limit: number) => reads.firstRecordsIn(span, limit),
      biggestRecordsIn: (span: TimeSpan, limit: number) => reads.biggestRecordsIn(span, limit),
      recordsIn: (span: TimeSpan) => reads.recordsIn(span),
      recordsAfter: (after: { ts: number; id: number }, limit: number) => reads.recordsAfter(after, limit)
    } as const
  }),
  dependencies: [ChainRepo.Default, ChainReadRepo.Default]
}) {}
