/**
 * SQL of the custom wallets (`alert_custom_wallets`, migration 0050), and only that. Infrastructure faults are
 * defects here; every method is a span (`WalletsRepo.<method>`).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface WalletRow {
  readonly id: number
  readonly address: string
  readonly label: string | null
  readonly created_at: Date
}

/** Advisory lock namespace of per-user custom-wallet creation (the count check). */
const WALLET_LOCK = 30_051

export class WalletsRepo extends Effect.Service<WalletsRepo>()("app/AlertWalletsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie

    return {
      wallets: Effect.fn("WalletsRepo.wallets")((userId: number) =>
        sql<WalletRow>`SELECT id, address, label, created_at FROM alert_custom_wallets WHERE user_id = ${userId} ORDER BY id`.pipe(die)),

      /** Adds a wallet unless the user has `cap` already (serialised per user) or has this one. */
      addWallet: Effect.fn("WalletsRepo.addWallet")((userId: number, address: string, label: string | null, cap: number) =>
        sql.withTransaction(Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(${WALLET_LOCK}, ${userId}::int)`
          const counted = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_custom_wallets WHERE user_id = ${userId}`
          if (counted[0]!.n >= cap) return { kind: "cap" as const }
          const rows = yield* sql<WalletRow>`
            INSERT INTO alert_custom_wallets (user_id, address, label) VALUES (${userId}, ${address}, ${label})
            ON CONFLICT (user_id, address) DO NOTHING RETURNING id, address, label, created_at`
          return rows[0] ? { kind: "added" as const, row: rows[0] } : { kind: "exists" as const }
        })).pipe(die)),

      /** Removes a user's wallet: its address, or null when the user has no such wallet. */
      removeWallet: Effect.fn("WalletsRepo.removeWallet")((userId: number, id: number) =>
        sql<{ address: string }>`DELETE FROM alert_custom_wallets WHERE id = ${id} AND user_id = ${userId} RETURNING address`.pipe(
          Effect.map((r) => r[0]?.address ?? null), die)),

      /** How many users monitor this address. */
      walletWatchers: Effect.fn("WalletsRepo.walletWatchers")((address: string) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_custom_wallets WHERE address = ${address}`.pipe(Effect.map((r) => r[0]!.n), die)),

      /**
       * The owners' labels of custom wallets (labelled ones only), of these users or, with null, of everyone: the
       * matching index's load and follow (an owner's own deliveries say their label).
       */
      labels: Effect.fn("WalletsRepo.labels")((userIds: ReadonlyArray<number> | null) =>
        (userIds === null
          ? sql<{ user_id: number; address: string; label: string }>`SELECT user_id, address, label FROM alert_custom_wallets WHERE label IS NOT NULL`
          : sql<{ user_id: number; address: string; label: string }>`
              SELECT user_id, address, label FROM alert_custom_wallets WHERE label IS NOT NULL AND user_id = ANY(${userIds}::bigint[])`
        ).pipe(die)),

      /** This user's row of a custom wallet (their own label), or null when they do not monitor it. */
      ownWallet: Effect.fn("WalletsRepo.ownWallet")((userId: number, address: string) =>
        sql<{ label: string | null }>`SELECT label FROM alert_custom_wallets WHERE user_id = ${userId} AND address = ${address}`.pipe(
          Effect.map((r) => (r.length > 0 ? { label: r[0]!.label } : null)), die)),

      isCustomWallet: Effect.fn("WalletsRepo.isCustomWallet")((address: string) =>
        sql<{ label: string | null }>`SELECT label FROM alert_custom_wallets WHERE address = ${address} LIMIT 1`.pipe(
          Effect.map((r) => (r.length > 0 ? { label: r[0]!.label } : null)), die))
    } as const
  })
}) {}
