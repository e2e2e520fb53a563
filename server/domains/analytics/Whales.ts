/**
 * Whales only (issue 28 part 5): what every figure leaves out, and the SQL test of a wallet that is counted. A wallet
 * is left out when the identity engine (migration 0110, `wallet_identity`) holds it for one of
 * `FIGURE_EXCLUDED_CLASSES` — bots, routers, pools, exchanges, bridges; a wallet it has not met yet counts. Exchange
 * housekeeping never reaches the roll-ups (migration 0120), whatever the scope. The test is one anti-join on the
 * identity table's primary key per statement: no per-record query, no call to the identity service in a request.
 */
import type { SqlClient } from "@effect/sql"
import { FIGURE_EXCLUDED_CLASSES } from "../../../schema/identity"
import type { Excludes, Scope } from "../../../schema/http/analytics"

export type { Scope }

const EXCLUDED_SQL = FIGURE_EXCLUDED_CLASSES.map((c) => `'${c}'`).join(", ")

/** `true` for every wallet with `all`; with `whales`, whether the wallet in `column` is counted. */
export const countedWallet = (sql: SqlClient.SqlClient, scope: Scope, column: string) =>
  scope === "all"
    ? sql`true`
    : sql.unsafe(`NOT EXISTS (SELECT 1 FROM wallet_identity i WHERE i.address = ${column} AND i.class IN (${EXCLUDED_SQL}))`)

/** Whether a wallet of this class is left out of the figures (with `scope = whales`). */
export const isExcludedClass = (cls: string): boolean => (FIGURE_EXCLUDED_CLASSES as ReadonlyArray<string>).includes(cls)

const WHALES: Excludes = {
  classes: [...FIGURE_EXCLUDED_CLASSES],
  exchange_housekeeping: true,
  bots_included: false,
  description: "Whales only: MEV bots, routers, pools, exchange wallets and bridges are left out (include=bots counts them); " +
    "transfers between exchange wallets (hot/cold, deposit sweeps, exchange to exchange) are never flows."
}
const ALL: Excludes = {
  classes: [],
  exchange_housekeeping: true,
  bots_included: true,
  description: "Every tracked wallet, bots, routers, pools, exchange wallets and bridges included (include=bots); " +
    "transfers between exchange wallets (hot/cold, deposit sweeps, exchange to exchange) are never flows."
}

export const excludesOf = (scope: Scope): Excludes => (scope === "all" ? ALL : WHALES)

/** `?include=bots` → `all`, else `whales`. */
export const scopeOf = (q: { readonly include?: "bots" | undefined } | undefined): Scope => (q?.include === "bots" ? "all" : "whales")
