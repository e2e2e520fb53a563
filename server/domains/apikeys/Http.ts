import { Effect } from "effect"
import { CreateKeyRequest, CreateKeyResponse, ListKeysResponse, MAX_ACTIVE_KEYS, RevokeKeyRequest, RevokeKeyResponse } from "../../../schema/http/apikeys"
import { AuthGuards } from "../accounts/Guards"
import { route } from "../../platform/http/Route"
import { ApiKeys } from "./ApiKeys"

export const ApiKeyRoutes = Effect.gen(function* () {
  const keys = yield* ApiKeys
  const guards = yield* AuthGuards
  return [
    route({
      method: "POST", path: "/api/keys/create", summary: "Create an API key (whale tier); the full key is returned only here",
      tags: ["api-keys"], guard: guards.tier("whale"), body: CreateKeyRequest, response: CreateKeyResponse,
      handler: ({ auth, body }) =>
        keys.create(auth.id, body.name)
    }),
    route({
      method: "GET", path: "/api/keys", summary: "The caller's active API keys: prefix, name, created, last used (never the key)",
      tags: ["api-keys"], guard: guards.user, response: ListKeysResponse,
      handler: ({ auth }) => keys.list(auth.id).pipe(Effect.map((list) => ({ keys: list, max_active: MAX_ACTIVE_KEYS })))
    }),
    route({
      method: "POST", path: "/api/keys/revoke", summary: "Revoke one of the caller's keys by its prefix (first 12 characters)",
      tags: ["api-keys"], guard: guards.user, body: RevokeKeyRequest, response: RevokeKeyResponse,
      handler: ({ auth, body }) =>
        keys.revoke(auth.id, body.prefix).pipe(
          Effect.as({ revoked: true as const, prefix: body.prefix })
        )
    })
  ]
})
