/**
 * The wallet page's reads (contracts in schema/http/wallets.ts): `GET /api/console/wallets/{address}` (identity
 * with sources and reasons, size, flows, picks, exchange movements) and `…/trades` (paged). Signed in or not; a
 * custom wallet is its owner's alone (404 to anyone else, as for an address we know nothing of); a malformed address
 * is a 422. Anonymous callers get records `anonDelayMs` late, as on the feed and the token page.
 */
import { Clock, Effect } from "effect"
import { WalletEndpoints as E } from "../../../schema/http/wallets"
import { AuthGuards } from "../../domains/accounts/Guards"
import { WalletProfiles } from "../../domains/wallets/WalletProfiles"
import { AppConfig } from "../../platform/Config"
import { NotFound } from "../../platform/http/Errors"
import { route } from "../../platform/http/Route"

const unknown = (address: string) => new NotFound({ message: `No wallet ${address} in the records`, code: "wallet_not_found" })

export const ConsoleWalletRoutes = Effect.gen(function* () {
  const wallets = yield* WalletProfiles
  const guards = yield* AuthGuards
  const { ws } = yield* AppConfig
  /** Records an anonymous caller may see at `now`. */
  const delayed = <T extends { readonly ts: string }>(rows: ReadonlyArray<T>, now: number, delay: number) =>
    delay > 0 ? rows.filter((r) => Date.parse(r.ts) <= now - delay) : [...rows]

  return [
    route(E.page, {
      guard: guards.optionalUser,
      handler: ({ params, auth }) =>
        Effect.gen(function* () {
          const page = yield* wallets.page(params.address, auth === null ? null : { userId: auth.id })
          if (page === null) return yield* Effect.fail(unknown(params.address))
          const delay = auth === null ? ws.anonDelayMs : 0
          return { ...page, exchange: delayed(page.exchange, yield* Clock.currentTimeMillis, delay), delay_ms: delay }
        })
    }),
    route(E.trades, {
      guard: guards.optionalUser,
      handler: ({ params, query, auth }) =>
        Effect.gen(function* () {
          const page = yield* wallets.trades(params.address, auth === null ? null : { userId: auth.id }, query)
          if (page === null) return yield* Effect.fail(unknown(params.address))
          const delay = auth === null ? ws.anonDelayMs : 0
          return { ...page, trades: delayed(page.trades, yield* Clock.currentTimeMillis, delay) }
        })
    })
  ]
})
