/**
 * The `api-key` guard of the keyed data API (spec §5, §7): the key comes in `X-API-Key` or the `api_key` query
 * parameter (the access log redacts its value). Missing, malformed, unknown or revoked → 401; a key whose owner
 * is now below the whale tier → 403.
 */
import { Effect } from "effect"
import { tierAtLeast } from "../../../schema/tiers"
import { type AppError, Forbidden, Unauthorized } from "../../platform/http/Errors"
import type { Guard, RequestInfo } from "../../platform/http/Route"
import { ApiKeys, type KeyOwner } from "./ApiKeys"

export const API_KEY_HEADER = "x-api-key"

const keyOf = (req: RequestInfo): string | undefined => {
  const header = req.header(API_KEY_HEADER)
  if (header !== undefined) return header.trim()
  if (!req.query.includes("api_key=")) return undefined
  return new URLSearchParams(req.query).get("api_key") ?? undefined
}

const unauthorized = (message: string, code: string) =>
  new Unauthorized({ message, code, headers: { "www-authenticate": `ApiKey realm="whale", header="X-API-Key"` } })

export class ApiKeyGuard extends Effect.Service<ApiKeyGuard>()("app/ApiKeyGuard", {
  dependencies: [ApiKeys.Default],
  effect: Effect.gen(function* () {
    const keys = yield* ApiKeys
    const guard: Guard<KeyOwner> = {
      name: "api-key",
      security: [{ apiKey: [] }],
      run: (req) => {
        const key = keyOf(req)
        if (key === undefined || key === "") return Effect.fail(unauthorized("Missing API key: send it as the X-API-Key header", "missing_api_key"))
        return Effect.flatMap(keys.resolve(key), (owner): Effect.Effect<KeyOwner, AppError> =>
          owner === null
            ? Effect.fail(unauthorized("Invalid or revoked API key", "invalid_api_key"))
            : tierAtLeast(owner.tier, "whale")
              ? Effect.succeed(owner)
              : Effect.fail(new Forbidden({
                message: "The data API needs the whale tier; this key's owner is no longer on it",
                code: "tier_required",
                extra: { required_tier: "whale", tier: owner.tier }
              }))
        )
      }
    }
    /**
     * The guard's answer without Effect, for the hot path: the owner when the key is cached, valid and its owner on
     * the whale tier; undefined for anything else (the guard then answers, 401/403 included).
     */
    const peek = (req: RequestInfo): KeyOwner | undefined => {
      const key = keyOf(req)
      if (key === undefined || key === "") return undefined
      const owner = keys.peek(key)
      return owner != null && tierAtLeast(owner.tier, "whale") ? owner : undefined
    }
    return { guard, peek } as const
  })
}) {}
