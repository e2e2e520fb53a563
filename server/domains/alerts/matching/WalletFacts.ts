/**
 * Who a record's wallet is, for the alert it fires (issue 28 part 5: "alerts on a wallet say who it is and why"):
 * its class, its label with the label's source, and the strongest reason, as the identity engine stored them
 * (`wallet_identity`, migration 0110). Kept in memory per wallet for FACTS_TTL_MS and loaded for a whole read of
 * `chain.tx` in one query (`prime`), so matching stays a plain synchronous step (`peek`) and no record costs a query.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { WalletWho } from "../Format"

const FACTS_TTL_MS = 5 * 60_000
/** Wallets remembered at most (least recently loaded dropped first). */
const CAPACITY = 50_000

interface Entry { readonly who: WalletWho | null; readonly at: number }

export class AlertWalletFacts extends Effect.Service<AlertWalletFacts>()("app/alerts/WalletFacts", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const known = new Map<string, Entry>()

    /** Loads the wallets not known or known for longer than FACTS_TTL_MS (one query); never fails the caller. */
    const prime = (wallets: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const now = Date.now()
        const missing = [...new Set(wallets.map((w) => w.toLowerCase()))].filter((w) => {
          const e = known.get(w)
          return e === undefined || now - e.at > FACTS_TTL_MS
        })
        if (missing.length === 0) return
        const rows = yield* sql<{ address: string; class: string; class_source: string | null; label: string | null; label_source: string | null; exchange: string | null; reason: string | null }>`
          SELECT address, class, class_source, label, label_source, exchange, reasons->>0 AS reason
          FROM wallet_identity WHERE address IN ${sql.in(missing)}`
        const found = new Map(rows.map((r) => [r.address, r]))
        for (const w of missing) {
          const r = found.get(w)
          known.delete(w)
          known.set(w, {
            at: now,
            who: r === undefined ? null : {
              class: r.class, class_source: r.class_source, label: r.label, label_source: r.label_source, exchange: r.exchange, reason: r.reason
            }
          })
        }
        while (known.size > CAPACITY) known.delete(known.keys().next().value!)
      }).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("alerts: wallet identities unavailable; alerts go out without them").pipe(Effect.annotateLogs({ cause: String(cause) })))
      )

    return {
      prime,
      /** What `prime` loaded for the wallet (null: the identity engine has not met it, or not loaded). */
      peek: (wallet: string): WalletWho | null => known.get(wallet.toLowerCase())?.who ?? null
    } as const
  })
}) {}
