/**
 * API keys (spec §2.3, §4.3, §5): whale-tier users create up to 10 active keys (the full key is returned once),
 * list them by prefix and revoke them by prefix. `resolve` maps a presented key to its owner and the owner's
 * CURRENT tier, kept API_KEY_CACHE_MS in process: a revocation or a downgrade takes effect on other processes
 * within that time, and at once on the process that revoked.
 */
import { KeyNotFound, TooManyKeys } from "./Errors"
import { Data, Effect } from "effect"
import { MAX_ACTIVE_KEYS, type ApiKeyInfo, type CreateKeyResponse } from "../../../schema/http/apikeys"
import type { Tier } from "../../../schema/tiers"
import { Entitlements } from "../accounts/Entitlements"
import { memo } from "../../platform/infra/Memo"
import { ApiKeysConfig } from "./Config"
import { generateKey, hashKey, looksLikeKey, prefixOf } from "./Format"
import { ApiKeysRepo, type KeyRow } from "./Repo"


/** Who a valid key belongs to, as of at most API_KEY_CACHE_MS ago. */
export interface KeyOwner {
  readonly keyId: number
  readonly userId: number
  readonly prefix: string
  readonly tier: Tier
}

const info = (row: KeyRow): ApiKeyInfo => ({
  prefix: row.prefix,
  name: row.name,
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null
})

export class ApiKeys extends Effect.Service<ApiKeys>()("app/ApiKeys", {
  dependencies: [ApiKeysRepo.Default, Entitlements.Default, ApiKeysConfig.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ApiKeysRepo
    const entitlements = yield* Entitlements
    const config = yield* ApiKeysConfig

    // Keyed by the key's hash. Not stale-while-revalidate (maxStale = ttl): an expired entry is looked up again.
    const owners = yield* memo({
      ttl: config.keyCacheMs,
      maxStale: config.keyCacheMs,
      capacity: 10_000,
      compute: (hash: string) =>
        Effect.gen(function* () {
          const key = yield* repo.byHash(hash)
          if (key === null) return null
          return { keyId: key.id, userId: key.user_id, prefix: key.prefix, tier: yield* entitlements.tierOf(key.user_id) } satisfies KeyOwner
        })
    })

    const create = Effect.fn("ApiKeys.create")(function* (userId: number, name: string) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const key = generateKey()
        const result = yield* repo.insert(userId, name, prefixOf(key), hashKey(key), MAX_ACTIVE_KEYS)
        if (result.kind === "limit") return yield* new TooManyKeys({ max: MAX_ACTIVE_KEYS })
        if (result.kind === "created") {
          return {
            ...info(result.row),
            key,
            warning: "Store this key now: it is shown only once. Send it as the X-API-Key header."
          } satisfies CreateKeyResponse
        }
      }
      return yield* Effect.die(new Error("could not draw an unused key prefix"))
    })

    const list = Effect.fn("ApiKeys.list")(function* (userId: number) {
      return (yield* repo.active(userId)).map(info)
    })

    const revoke = Effect.fn("ApiKeys.revoke")(function* (userId: number, prefix: string) {
      const hash = yield* repo.revoke(userId, prefix)
      if (hash === null) return yield* new KeyNotFound({ prefix })
      yield* owners.invalidate(hash)
    })

    /** The owner of a presented key; null when the key is malformed, unknown or revoked. */
    const resolve = (key: string): Effect.Effect<KeyOwner | null> =>
      looksLikeKey(key) ? owners.get(hashKey(key)) : Effect.succeed(null)

    /** `resolve` without Effect: the owner when the key's lookup is cached (null: unknown or revoked), else undefined. */
    const peek = (key: string): KeyOwner | null | undefined => (looksLikeKey(key) ? owners.peek(hashKey(key)) : null)

    return { create, list, revoke, resolve, peek, active: repo.active } as const
  })
}) {}
