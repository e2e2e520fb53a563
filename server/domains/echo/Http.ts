/**
 * Echo's routes (spec §4.11 and the extras of issue 13: lag curve, auto-copy, shadow positions, admin settings).
 * Thin: parse → call the service → respond (errors answer through EchoErrors). The gate: whale tier (403 `tier_required`); the `echo_free_preview`
 * setting opens it to every signed-in user; `echo_live = false` answers 503 `echo_coming_soon` (administrators
 * pass both, so they can try Echo before launch). `/tokens` and `/token-lookup` are open to anonymous callers.
 */
import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import { z } from "zod"
import * as W from "../../../schema/http/echo"
import { address } from "../../../schema/common"
import { TIER_RANK } from "../../../schema/tiers"
import { AuthGuards, type AuthUser } from "../accounts/Guards"
import { Forbidden, Unavailable } from "../../platform/http/Errors"
import { Guard } from "../../platform/http/Guards"
import { route, type Guard as GuardT, type RequestInfo } from "../../platform/http/Route"
import { EchoBook } from "./Book"
import { Echo } from "./Echo"
import { EchoMarket } from "./Market"
import { EchoSettings } from "./Settings"

const AddressParam = z.object({ address })
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
  const tags = ["echo"]
  /** The user's portfolio entity follows prices while the user is active: touched on writes, and on reads at most every 30 s. */
  const lastTouch = new Map<number, number>()
  const touched = <A, E>(userId: number, force: boolean) => (effect: Effect.Effect<A, E>) =>
    effect.pipe(Effect.tap(() => {
      const now = Date.now()
      if (!force && now - (lastTouch.get(userId) ?? 0) < 30_000) return Effect.void
      if (lastTouch.size > 100_000) lastTouch.clear()
      lastTouch.set(userId, now)
      return book.touch(userId)
    }))

  return [
    route({ method: "GET", path: "/api/echo/portfolio", summary: "Cash, holdings at live prices, total value and P&L", tags, guard: gate, response: W.Portfolio,
      handler: ({ auth }) => echo.portfolio(auth.id).pipe(touched(auth.id, false)) }),
    route({ method: "GET", path: "/api/echo/feed", summary: "The whale feed (DEX trades), newest first, with a copy hint", tags, guard: gate, query: W.FeedQuery, response: W.FeedPage,
      handler: ({ query }) => market.feed(query.page, query.limit) }),
    route({ method: "POST", path: "/api/echo/trade", summary: "A manual simulated trade, BUY or SELL, by usd or quantity", tags, guard: gate, body: W.TradeRequest, response: W.TradeResponse,
      handler: ({ auth, body, req }) => book.manual(auth.id, commandIdOf(req, auth.id, body.command_id), body).pipe(touched(auth.id, true)) }),
    route({ method: "POST", path: "/api/echo/copy", summary: "Copy one whale trade at a chosen size, filled honestly (delay, slippage, gas)", tags, guard: gate, body: W.CopyRequest, response: W.TradeResponse,
      handler: ({ auth, body, req }) => book.copy(auth.id, commandIdOf(req, auth.id, body.command_id), { txHash: body.tx_hash, logIndex: body.log_index, wallet: body.wallet, usd: body.usd, fraction: body.fraction }).pipe(touched(auth.id, true)) }),
    route({ method: "GET", path: "/api/echo/trades", summary: "Trade history, newest first, with the total count", tags, guard: gate, query: W.TradesQuery, response: W.TradesPage,
      handler: ({ auth, query }) => echo.trades(auth.id, query.page, query.limit) }),
    route({ method: "GET", path: "/api/echo/leaderboard", summary: "Top 100 by return with a risk-adjusted column, and the caller's rank", tags, guard: gate, response: W.Leaderboard,
      handler: ({ auth }) => echo.leaderboard(auth.id) }),
    route({ method: "GET", path: "/api/echo/analytics", summary: "Win rate, P&L, profit factor, best/worst, holding time, copy versus whale", tags, guard: gate, response: W.Analytics,
      handler: ({ auth }) => echo.analytics(auth.id) }),
    route({ method: "GET", path: "/api/echo/hot-tokens", summary: "Top tokens by whale volume in the last 24 h", tags, guard: gate, response: W.HotTokens,
      handler: () => market.hotTokens() }),
    route({ method: "GET", path: "/api/echo/token/{address}/chart-data", summary: "OHLC from priced whale trades and market stats (cached 5 minutes)", tags, guard: gate,
      params: AddressParam, query: W.ChartQuery, response: W.ChartData,
      handler: ({ params, query }) => market.chart(params.address, query.tf) }),
    route({ method: "GET", path: "/api/echo/tokens", summary: "Tracked tokens (no stablecoins, ETH derivatives or blacklisted) by trade count; cached 5 minutes", tags, guard: Guard.anon, response: W.TokenList,
      handler: () => market.tokens }),
    route({ method: "GET", path: "/api/echo/token-lookup", summary: "Symbol and current price of a contract address", tags, guard: Guard.anon, query: W.TokenLookupQuery, response: W.TokenLookup,
      handler: ({ query }) => market.lookup(query.address) }),
    route({ method: "GET", path: "/api/echo/token/{address}/flow", summary: "24 h whale buy/sell flow of a token", tags, guard: gate, params: AddressParam, response: W.TokenFlow,
      handler: ({ params }) => market.flow(params.address) }),
    route({ method: "POST", path: "/api/echo/reset", summary: "Back to the starting balance; holdings and history wiped (the leaderboard counts resets)", tags, guard: gate, response: W.ResetResponse,
      handler: ({ auth }) => book.reset(auth.id).pipe(touched(auth.id, true), Effect.map((portfolio) => ({ portfolio }))) }),

    route({ method: "GET", path: "/api/echo/wallet/{address}/lag-curve", summary: "Edge versus lag: copying this wallet at 0, 1, 5 and 25 blocks, after costs", tags, guard: gate, params: AddressParam, response: W.LagCurve,
      handler: ({ params }) => market.lagCurve(params.address) }),
    route({ method: "GET", path: "/api/echo/autocopy", summary: "The caller's auto-copy rules", tags, guard: gate, response: W.AutoCopyList,
      handler: ({ auth }) => echo.rules(auth.id) }),
    route({ method: "POST", path: "/api/echo/autocopy", summary: "Follow a whale wallet automatically (fixed USD or a fraction of its size, capped per trade)", tags, guard: gate, body: W.AutoCopyRule, response: W.AutoCopyList,
      handler: ({ auth, body }) => echo.setRule({ user_id: auth.id, ...body }) }),
    route({ method: "DELETE", path: "/api/echo/autocopy/{address}", summary: "Stop following a wallet", tags, guard: gate, params: AddressParam, response: W.AutoCopyList,
      handler: ({ auth, params }) => echo.deleteRule(auth.id, params.address) }),
    route({ method: "GET", path: "/api/echo/shadow", summary: "Auto-copy skips kept as shadow positions, valued now", tags, guard: gate, response: W.Shadow,
      handler: ({ auth }) => echo.shadows(auth.id, 100).pipe(Effect.map((items) => ({ items }))) }),
    route({ method: "GET", path: "/api/echo/settings", summary: "Whether Echo is live and open as a free preview", tags, guard: Guard.anon, response: W.EchoSettings,
      handler: () => settings.get }),
    route({ method: "PUT", path: "/api/echo/admin/settings", summary: "Set echo_live / echo_free_preview (administrators; every process follows within seconds)", tags, guard: guards.admin,
      body: W.EchoSettingsUpdate, response: W.EchoSettings,
      handler: ({ auth, body }) => settings.update(body, auth.id) })
  ]
})
