/**
 * The chain domain's door for wallets other domains ask it to monitor (alerts' custom wallets): they join
 * `tracked_wallets` with source `custom`, so the block listener records them from its next block (it reloads the
 * tracked set when the table changes). Seed and imported wallets are never touched: a custom request for an
 * address already tracked changes nothing, and untracking only deactivates rows that custom requests created.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export class ChainWallets extends Effect.Service<ChainWallets>()("app/ChainWallets", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      /** Starts monitoring an address (idempotent). */
      trackCustom: (address: string, label: string) =>
        sql`
          INSERT INTO tracked_wallets (address, label, cohort, source) VALUES (${address}, ${label}, 'mid', 'custom')
          ON CONFLICT (address) DO UPDATE SET active = true WHERE tracked_wallets.source = 'custom'`.pipe(Effect.asVoid, Effect.orDie),

      /** Stops monitoring an address that only custom requests had asked for. */
      untrackCustom: (address: string) =>
        sql`UPDATE tracked_wallets SET active = false WHERE address = ${address} AND source = 'custom'`.pipe(Effect.asVoid, Effect.orDie),

      /** What the chain knows about an address: a labelled exchange or router, a tracked wallet, or nothing. */
      describe: (address: string) =>
        Effect.all({
          label: sql<{ category: string; name: string }>`SELECT category, name FROM address_labels WHERE address = ${address}`,
          tracked: sql<{ label: string; source: string; active: boolean }>`SELECT label, source, active FROM tracked_wallets WHERE address = ${address}`
        }).pipe(
          Effect.map(({ label, tracked }) => ({
            labelCategory: label[0]?.category ?? null,
            labelName: label[0]?.name ?? null,
            tracked: tracked[0] ? { label: tracked[0].label, source: tracked[0].source, active: tracked[0].active } : null
          })),
          Effect.orDie
        )
    } as const
  })
}) {}
