/**
 * The API-key guard at the service level: the guard over a stubbed `ApiKeys` (no database, no HTTP). What it
 * answers for a missing, malformed, unknown or revoked key, an owner below the whale tier, and the hot path's peek.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { ApiKeys, type KeyOwner } from "../../server/domains/apikeys/ApiKeys"
import { ApiKeyGuard } from "../../server/domains/apikeys/Guard"
import type { RequestInfo } from "../../server/platform/http/Route"
import { stub } from "../support/stub"

const KEY = `whk_live_${"a".repeat(32)}`
const whale: KeyOwner = { keyId: 1, userId: 7, prefix: KEY.slice(0, 12), tier: "whale" }

const request = (headers: Record<string, string>, query = ""): RequestInfo => ({
  id: "t", method: "GET", path: "/api/v1/stats", query, ip: "127.0.0.1",
  headers: new Map(Object.entries(headers)),
  header: (name) => headers[name],
  cookie: () => undefined
})

const withOwner = (owner: KeyOwner | null) =>
  stub(ApiKeys, { resolve: (key) => Effect.succeed(key === KEY ? owner : null), peek: (key) => (key === KEY ? owner : undefined) })

const outcome = (req: RequestInfo) =>
  Effect.flatMap(ApiKeyGuard, (g) => Effect.either(g.guard.run(req))).pipe(
    Effect.map(Either.match({ onRight: (o) => ({ ok: o.userId }), onLeft: (e) => ({ refused: e._tag, code: "code" in e ? e.code : undefined }) }))
  )

describe("api-key guard", () => {
  it.effect("admits a whale's key from the header or the api_key query parameter", () =>
    Effect.gen(function* () {
      expect(yield* outcome(request({ "x-api-key": KEY }))).toEqual({ ok: 7 })
      expect(yield* outcome(request({}, `tf=1H&api_key=${KEY}`))).toEqual({ ok: 7 })
    }).pipe(Effect.provide(ApiKeyGuard.DefaultWithoutDependencies), Effect.provide(withOwner(whale))))

  it.effect("401 for a missing or unknown key, 403 for an owner below whale", () =>
    Effect.gen(function* () {
      expect(yield* outcome(request({}))).toEqual({ refused: "Unauthorized", code: "missing_api_key" })
      expect(yield* outcome(request({ "x-api-key": "nope" }))).toEqual({ refused: "Unauthorized", code: "invalid_api_key" })
      const alpha = yield* outcome(request({ "x-api-key": KEY })).pipe(
        Effect.provide(ApiKeyGuard.DefaultWithoutDependencies), Effect.provide(withOwner({ ...whale, tier: "alpha" }))
      )
      expect(alpha).toEqual({ refused: "Forbidden", code: "tier_required" })
    }).pipe(Effect.provide(ApiKeyGuard.DefaultWithoutDependencies), Effect.provide(withOwner(whale))))

  it.effect("the hot path peeks only a cached whale key; anything else goes down the guard", () =>
    Effect.gen(function* () {
      const guard = yield* ApiKeyGuard
      expect(guard.peek(request({ "x-api-key": KEY }))).toEqual(whale)
      expect(guard.peek(request({ "x-api-key": "nope" }))).toBeUndefined()
      expect(guard.peek(request({}))).toBeUndefined()
    }).pipe(Effect.provide(ApiKeyGuard.DefaultWithoutDependencies), Effect.provide(withOwner(whale))))

  it.effect("a stub fails loudly when the code under test uses a method the test did not supply", () =>
    Effect.gen(function* () {
      const keys = yield* ApiKeys
      expect(() => keys.list).toThrow(/ApiKeys.list was used, but the test did not supply it/)
    }).pipe(Effect.provide(withOwner(whale))))
})
