/**
 * Echo's routes (spec §4.11 and the extras of issue 13: lag curve, auto-copy, shadow positions, admin settings).
 * Thin: parse → call the service → respond (errors answer through EchoErrors). The gate: whale tier (403 `tier_required`); the `echo_free_preview`
 * setting opens it to every signed-in user; `echo_live = false` answers 503 `echo_coming_soon` (administrators
 * pass both, so they can try Echo before launch). `/tokens` and `/token-lookup` are open to anonymous callers.
 * Contracts: schema/http/echo.ts.
 */
import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import { EchoEndpoints as E } from "../../../schema/http/echo"
import { TIER_RANK } from "../../../schema/tiers"
import { AuthGuards, type AuthUser } from "../accounts/Guards"
import { Forbidden, Unavailable } from "../../platform/http/Errors"
import { Guard } from "../../platform/http/Guards"
import { route, type Guard as GuardT, type RequestInfo } from "../../platform/http/Route"
import { EchoBook } from "./Book"
import { Echo } from "./Echo"
import { EchoConfig } from "./Config"
import { EchoMarket } from "./Market"
import { EchoRelay } from "./Relay"
import { EchoSettings } from "./Settings"

/**
 * The command id of an HTTP order: the client's key within the caller's own namespace, so another user's same key
 * is that user's own command (neither a 409 that reveals the key is taken, nor a way to block its owner's retry).
 */
const commandIdOf = (req: RequestInfo, userId: number, fromBody: string | undefined) => {
  const key = fromBody ?? req.header("idempotency-key")?.trim()
  return key && /^[A-Za-z0-9:_\-.]{8,100}$/.test(key) ? `http:${userId}:${key}` : `http:${userId}:${randomUUID()}`
}

export const EchoRoutes = Effect.gen(function* () {
  const guards = yield* AuthGuards
  const settings = yield* EchoSettings
  const echo = yield* Echo
  const book = yield* EchoBook
  const market = yield* EchoMarket
  const relay = yield* EchoRelay
  const { httpTrades } = yield* EchoConfig

  /** Whale tier (or the free preview, or an administrator), while Echo is live. */
  const gate: GuardT<AuthUser> = {
    name: "tier>=whale|echo_free_preview",
    security: guards.user.security,
    run: (req) => Effect.gen(function* () {
      const user = yield* guards.user.run(req)
      const s = yield* settings.get
      if (user.admin) return user
      if (!s.echo_live) return yield* Effect.fail(new Unavailable({ message: "Echo is coming soon", code: "echo_coming_soon" }))
      if (TIER_RANK[user.tier] >= TIER_RANK.whale || s.echo_free_preview) return user
      return yield* Effect.fail(new Forbidden({ message: "Echo needs the whale tier", code: "tier_required", extra: { required_tier: "whale", tier: user.tier } }))
    })
  }
  /**
   * The user's portfolio entity follows prices while the user is active: touched on writes, and on reads at most every
   * 30 s — or every half idle time when that is shorter, so a reading user's entity is never passivated between touches.
   */
  const touchEveryMs = Math.min(30_000, Math.max(1, Math.floor(book.idleMs / 2)))
  const lastTouch = new Map<number, number>()
  const touched = <A, E>(userId: number, force: boolean) => (effect: Effect.Effect<A, E>) =>
    effect.pipe(Effect.tap(() => {
      const now = Date.now()
      if (!force && now - (lastTouch.get(userId) ?? 0) < touchEveryMs) return Effect.void
      if (lastTouch.size > 100_000) lastTouch.clear()
      lastTouch.set(userId, now)
      return book.touch(userId)
    }))

  return [
    route(E.portfolio, { guard: gate, handler: ({ auth }) => echo.portfolio(auth.id).pipe(touched(auth.id, false)) }),
    route(E.feed, { guard: gate, handler: ({ query }) => market.feed(query.page, query.limit) }),
    // ECHO_HTTP_TRADES: applied here under the row lock (direct, the default), or by the user's actor (docs/domains/echo.md).
    route(E.trade, {
      guard: gate,
      handler: ({ auth, body, req }) => httpTrades === "actor"
        ? relay.trade(auth.id, commandIdOf(req, auth.id, body.command_id), body)
        : book.manual(auth.id, commandIdOf(req, auth.id, body.command_id), body).pipe(touched(auth.id, true))
    }),
    route(E.copy, {
      guard: gate,
      handler: ({ auth, body, req }) =>
        book.copy(auth.id, commandIdOf(req, auth.id, body.command_id), { txHash: body.tx_hash, logIndex: body.log_index, wallet: body.wallet, usd: body.usd, fraction: body.fraction })
          .pipe(touched(auth.id, true))
    }),
    route(E.trades, { guard: gate, handler: ({ auth, query }) => echo.trades(auth.id, query.page, query.limit) }),
    route(E.leaderboard, { guard: gate, handler: ({ auth }) => echo.leaderboard(auth.id) }),
    route(E.analytics, { guard: gate, handler: ({ auth }) => echo.analytics(auth.id) }),
    route(E.hotTokens, { guard: gate, handler: () => market.hotTokens() }),
    route(E.chart, { guard: gate, handler: ({ params, query }) => market.chart(params.address, query.tf) }),
    route(E.tokens, { guard: Guard.anon, handler: () => market.tokens }),
    route(E.lookup, { guard: Guard.anon, handler: ({ query }) => market.lookup(query.address) }),
    route(E.flow, { guard: gate, handler: ({ params }) => market.flow(params.address) }),
    route(E.reset, { guard: gate, handler: ({ auth }) => book.reset(auth.id).pipe(touched(auth.id, true), Effect.map((portfolio) => ({ portfolio }))) }),

    route(E.lagCurve, { guard: gate, handler: ({ params }) => market.lagCurve(params.address) }),
    route(E.rules, { guard: gate, handler: ({ auth }) => echo.rules(auth.id) }),
    route(E.setRule, { guard: gate, handler: ({ auth, body }) => echo.setRule({ user_id: auth.id, ...body }) }),
    route(E.deleteRule, { guard: gate, handler: ({ auth, params }) => echo.deleteRule(auth.id, params.address) }),
    route(E.shadow, { guard: gate, handler: ({ auth }) => echo.shadows(auth.id, 100).pipe(Effect.map((items) => ({ items }))) }),
    route(E.settings, { guard: Guard.anon, handler: () => settings.get }),
    route(E.updateSettings, { guard: guards.admin, handler: ({ auth, body }) => settings.update(body, auth.id) })
  ]
})
