/**
 * The keyed wallet endpoints (issue 29 part 1; contracts in schema/http/wallets.ts): `GET /api/v1/wallets/{address}`
 * and `GET /api/v1/wallets/{address}/flows?days=1..365`, whale tier, in the data API's envelope with its quota and
 * headers (DataApi.serve). Order of refusals: no or bad key 401, tier 403 (the guard), a malformed address 422 (the
 * path, before the count), then the count (429 past the limit), a bad `days` 422 (counted, with the quota headers),
 * and 404 for an address that is not tracked — or is another user's custom wallet (only its owner's key sees it).
 * Answers are computed per request from the roll-ups and indexes (bounded), never cached across keys.
 */
import { Effect } from "effect"
import { WalletApiEndpoints as E, WalletFlowsQuery } from "../../../schema/http/wallets"
import { ApiKeyGuard } from "../../domains/apikeys/Guard"
import { WalletProfiles } from "../../domains/wallets/WalletProfiles"
import { NotFound } from "../../platform/http/Errors"
import { route } from "../../platform/http/Route"
import { DataApi } from "./DataApi"
import { NoQuery } from "./Http"

const untracked = (address: string) => new NotFound({ message: `${address} is not a tracked wallet`, code: "wallet_not_tracked" })

export const WalletApiRoutes = Effect.gen(function* () {
  const api = yield* DataApi
  const { guard } = yield* ApiKeyGuard
  const wallets = yield* WalletProfiles

  return [
    route(E.wallet, {
      guard, rawQuery: true,
      handler: ({ auth, req, params }) =>
        api.serve(E.wallet.path, NoQuery, (_, owner) =>
          wallets.summary(params.address, { userId: owner.userId }).pipe(
            Effect.flatMap((summary) => (summary === null ? Effect.fail(untracked(params.address)) : Effect.succeed({ value: summary })))
          )).effect(auth, req)
    }),
    route(E.flows, {
      guard, rawQuery: true,
      handler: ({ auth, req, params }) =>
        api.serve(E.flows.path, WalletFlowsQuery, (q, owner) =>
          wallets.flows(params.address, { userId: owner.userId }, q.days).pipe(
            Effect.flatMap((flows) => (flows === null ? Effect.fail(untracked(params.address)) : Effect.succeed({ value: flows })))
          )).effect(auth, req)
    })
  ]
})
