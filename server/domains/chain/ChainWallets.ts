/**
 * The chain domain's door for wallets: the tracked set as other domains may read it (the identity engine), and the
 * wallets other domains ask it to monitor (alerts' custom wallets), which join `tracked_wallets` with source
 * `custom`, so the block listener records them from its next block (it reloads the tracked set when the table
 * changes). Seed and imported wallets are never touched: a custom request for an
 * address already tracked changes nothing, and untracking only deactivates rows that custom requests created.
 * Other domains use this service, never the chain's tables; its SQL is the chain's `Repo.ts`.
 */
import { Effect } from "effect"
import { ChainRepo } from "./Repo"

export class ChainWallets extends Effect.Service<ChainWallets>()("app/ChainWallets", {
  dependencies: [ChainRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ChainRepo
    return {
      /** Starts monitoring an address (idempotent), under its short address: a user's own label stays private. */
      trackCustom: Effect.fn("ChainWallets.trackCustom")(function* (address: string) {
        yield* repo.trackCustomWallet(address, `${address.slice(0, 6)}…${address.slice(-4)}`)
      }),

      /** Stops monitoring an address that only custom requests had asked for. */
      untrackCustom: Effect.fn("ChainWallets.untrackCustom")(function* (address: string) {
        yield* repo.untrackCustomWallet(address)
      }),

      /** A wallet found on chain joins the tracked set (false: the address is tracked from another source). */
      trackDiscovered: (address: string, label: string, cohort: "mega" | "large" | "mid") => repo.trackDiscoveredWallet(address, label, cohort),
      /** A discovered wallet's cohort, from its measured size. */
      setDiscoveredCohort: (address: string, cohort: "mega" | "large" | "mid") => repo.setDiscoveredCohort(address, cohort),
      /** A discovered wallet leaves the tracked set (its row and records stay). */
      untrackDiscovered: (address: string) => repo.untrackDiscoveredWallet(address),
      /** How many discovered wallets are tracked now. */
      discoveredCount: repo.discoveredCount,

      /** The active tracked wallets with their label and source (seed, import, custom, discovered, demo). */
      tracked: repo.listWallets.pipe(Effect.map((rows) => rows.filter((r) => r.active))),

      /** Changes whenever an active tracked wallet is added, removed, (de)activated or relabelled. */
      trackedSignature: repo.walletsSignature,

      /** What the chain knows about an address: a labelled exchange or router, a tracked wallet, or nothing. */
      describe: Effect.fn("ChainWallets.describe")(function* (address: string) {
        const { label, tracked } = yield* repo.addressFacts(address)
        return {
          labelCategory: label?.category ?? null,
          labelName: label?.name ?? null,
          tracked: tracked ? { label: tracked.label, cohort: tracked.cohort, source: tracked.source, active: tracked.active } : null
        }
      })
    } as const
  })
}) {}
