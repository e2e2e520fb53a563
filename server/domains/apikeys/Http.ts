/** API key routes (spec §4.3; contracts in schema/http/apikeys.ts): created by whale-tier users, listed and revoked by prefix. */
import { Effect } from "effect"
import { ApiKeyEndpoints as E, MAX_ACTIVE_KEYS } from "../../../schema/http/apikeys"
import { AuthGuards } from "../accounts/Guards"
import { route } from "../../platform/http/Route"
import { ApiKeys } from "./ApiKeys"

export const ApiKeyRoutes = Effect.gen(function* () {
  const keys = yield* ApiKeys
  const guards = yield* AuthGuards
  return [
    route(E.create, { guard: guards.tier("whale"), handler: ({ auth, body }) => keys.create(auth.id, body.name) }),
    route(E.list, {
      guard: guards.user,
      handler: ({ auth }) => keys.list(auth.id).pipe(Effect.map((list) => ({ keys: list, max_active: MAX_ACTIVE_KEYS })))
    }),
    route(E.revoke, {
      guard: guards.user,
      handler: ({ auth, body }) => keys.revoke(auth.id, body.prefix).pipe(Effect.as({ revoked: true as const, prefix: body.prefix }))
    })
  ]
})
