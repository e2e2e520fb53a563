/**
 * Reference data in the database: seeded from data/*.json (idempotent upserts, at every start), read back into
 * what ingestion needs (an `IngestSession`), and extended by what ingestion learns (token metadata read over RPC,
 * stored with source 'chain', or 'unknown' when the contract would not say).
 *
 * An `IngestSession` is the transient state of one ingestion run: the token cache, the price book, the labels
 * and the tracked wallets, which it reloads when the table changed (`refreshWallets`).
 */
import { Effect, Layer } from "effect"
import { ChainConfig } from "./Config"
import { demoWallets } from "./demo/Wallets"
import { TokenCache, type IngestContext } from "./Ingest"
import { PriceBook, type PricePoint } from "./PriceBook"
import { labelLookup, loadReference, type Reference } from "./Reference"
import { ChainRepo } from "./Repo"
import { UNKNOWN_TOKEN } from "./Source"
import { Label, type ResolvedToken } from "./Types"

export interface ExtraWallet {
  readonly address: string
  readonly label: string
}

export interface SessionOptions {
  /** Wallets tracked for this run in addition to the stored ones (backfill `--wallets`). */
  readonly extraWallets?: ReadonlyArray<ExtraWallet>
  /**
   * A dry run: never write (learned tokens stay in memory), and see the reference data as a real run would
   * after seeding it — the database (if it has the chain tables) overlaid with the seed files.
   */
  readonly readOnly?: boolean
}

export interface IngestSession {
  readonly context: () => IngestContext
  readonly prices: () => PriceBook
  /** A fresh price book knowing `eth` (after a rollback, or on resume from a checkpoint). */
  readonly resetPrices: (eth: PricePoint | null) => void
  readonly walletLabel: (address: string) => string | null
  readonly walletCount: () => number
  /** Reloads the tracked wallets if the table changed since the last load; true when it did. */
  readonly refreshWallets: Effect.Effect<boolean>
  /** Stores the token metadata learned since the last call. */
  readonly saveLearnedTokens: Effect.Effect<void>
}

const isUnknown = (t: ResolvedToken) => t.decimals === null || t.symbol === UNKNOWN_TOKEN.symbol

export class ChainCatalog extends Effect.Service<ChainCatalog>()("app/ChainCatalog", {
  dependencies: [ChainRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ChainRepo

    const seed = Effect.fn("ChainCatalog.seed")(function* (reference?: Reference) {
      const ref = reference ?? loadReference()
      yield* repo.upsertTokens([...ref.tokens.values()].map((t) => ({ ...t, source: "seed" as const })))
      yield* repo.upsertLabels([...ref.labels.values()])
      const added = yield* repo.seedWallets(ref.wallets.map((w) => ({ ...w, source: "seed" as const })))
      yield* Effect.logDebug(`reference data seeded: ${ref.tokens.size} tokens, ${ref.labels.size} labels, ${added} new wallets`)
    })

    /** Tracks the demo chain's wallets (source 'demo'); a wallet already tracked is left as the operator has it. */
    const trackDemoWallets = Effect.fn("ChainCatalog.trackDemoWallets")(function* (seed: number) {
      const added = yield* repo.seedWallets(demoWallets(seed, [], []).map((w) => ({ address: w.address, label: w.label, cohort: w.cohort, source: "demo" as const })))
      if (added > 0) yield* Effect.logDebug(`demo chain: ${added} demo wallets tracked`)
    })

    /** What the database holds; with `preview`, as it would be once seeded (the seed wins, as `seed` does). */
    const reference = (preview: boolean) =>
      Effect.gen(function* () {
        const tables = !preview || (yield* repo.hasChainTables)
        const labels = new Map<string, Label>()
        for (const row of tables ? yield* repo.labels : []) {
          const parsed = Label.safeParse({
            address: row.address, name: row.name, category: row.category,
            ...(row.exchange === null ? {} : { exchange: row.exchange }), ...(row.venue === null ? {} : { venue: row.venue })
          })
          // Funds and other labels do not take part in decoding.
          if (parsed.success) labels.set(parsed.data.address, parsed.data)
        }
        const tokens = tables ? yield* repo.tokens : []
        const wallets = tables ? yield* repo.activeWallets : []
        if (!preview) return { tokens, labels, wallets }
        const seed = loadReference()
        const known = new Set((tables ? yield* repo.listWallets : []).map((w) => w.address))
        return {
          tokens: [...tokens.filter((t) => !seed.tokens.has(t.address)), ...seed.tokens.values()],
          labels: new Map([...labels, ...seed.labels]),
          wallets: [...wallets, ...seed.wallets.filter((w) => !known.has(w.address))]
        }
      })

    const open = Effect.fn("ChainCatalog.open")(function* (options: SessionOptions = {}) {
      const preview = options.readOnly === true
      // The signature before the wallets: a change committed between the two reads then differs from it at the
      // next refresh and is loaded (read after, it would already include the change the stored list missed).
      const initialSignature = preview ? null : yield* repo.walletsSignature
      const { tokens: known, labels, wallets: stored } = yield* reference(preview)
      const extra = new Map((options.extraWallets ?? []).map((w) => [w.address, w.label]))
      const tokens = new TokenCache(known)
      let prices = new PriceBook(tokens.lookup)
      let wallets = new Map<string, string>()
      let walletSet: ReadonlySet<string> = new Set()
      let signature: string | null = initialSignature
      const setWallets = (rows: ReadonlyArray<{ address: string; label: string }>) => {
        wallets = new Map([...extra, ...rows.map((w) => [w.address, w.label] as const)])
        walletSet = new Set(wallets.keys())
      }
      setWallets(stored)
      const lookup = labelLookup(labels)

      const session: IngestSession = {
        context: () => ({ wallets: walletSet, labels: lookup, tokens, prices }),
        prices: () => prices,
        resetPrices: (eth) => {
          prices = new PriceBook(tokens.lookup)
          if (eth !== null) prices.observeEth(eth)
        },
        walletLabel: (address) => wallets.get(address) ?? null,
        walletCount: () => wallets.size,
        refreshWallets: Effect.gen(function* () {
          if (signature === null) return false
          const now = yield* repo.walletsSignature
          if (now === signature) return false
          setWallets(yield* repo.activeWallets)
          signature = now
          yield* Effect.logInfo(`tracked wallets reloaded: ${wallets.size} active`)
          return true
        }),
        saveLearnedTokens: Effect.suspend(() => {
          const learned = tokens.takeLearned()
          if (learned.length === 0 || preview) return Effect.void
          return repo.upsertTokens(learned.map((t) => ({ ...t, source: isUnknown(t) ? "unknown" as const : "chain" as const })))
        })
      }
      return session
    })

    return { seed, trackDemoWallets, open } as const
  })
}) {}

/**
 * The catalog with the reference data seeded first (at the app's start, in every process; idempotent). On the demo
 * chain the demo wallets are tracked too, before the listener's first block: the demo's activity is theirs alone.
 */
export const ChainCatalogSeeded = Layer.effectDiscard(Effect.gen(function* () {
  const catalog = yield* ChainCatalog
  yield* catalog.seed()
  const chain = yield* ChainConfig
  if (chain.source === "demo") yield* catalog.trackDemoWallets(chain.demoSeed)
})).pipe(Layer.provideMerge(ChainCatalog.Default), Layer.provide(ChainConfig.Default))
