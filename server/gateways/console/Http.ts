/**
 * The console's own read endpoint: `GET /api/console/tokens/{token}` — a token (address, symbol or ETH) with its
 * whale flows for 1H / 24H / 7D and its most recent whale trades, for the token page's price/flow chart. Read
 * through the analytics domain's services (its tables stay its own). Anonymous callers get what the anonymous
 * WebSocket feed gets: trades `anonDelayMs` late, wallets masked. Answers are reused for a few seconds per token.
 */
import { Effect } from "effect"
import type { Timeframe } from "../../../schema/http/analytics"
import { ConsoleEndpoints, type TokenDetail } from "../../../schema/http/console"
import { Analytics } from "../../domains/analytics/Analytics"
import { ReadModels } from "../../domains/analytics/ReadModels"
import { AuthGuards } from "../../domains/accounts/Guards"
import { AppConfig } from "../../platform/Config"
import { NotFound } from "../../platform/http/Errors"
import { Guard } from "../../platform/http/Guards"
import { route } from "../../platform/http/Route"
import { memo } from "../../platform/infra/Memo"
import { anonymousTrades, maskAddress } from "./AnonymousView"
import { makeHistoryReplay } from "./History"

/** Trades sent for the chart (the newest). */
const TRADES = 300
const TIMEFRAMES: ReadonlyArray<Timeframe> = ["1H", "24H", "7D"]

export const ConsoleRoutes = Effect.gen(function* () {
  const analytics = yield* Analytics
  const models = yield* ReadModels
  const guards = yield* AuthGuards
  const { ws } = yield* AppConfig

  const detail = yield* memo({
    ttl: "5 seconds",
    capacity: 256,
    compute: (token: string) =>
      Effect.gen(function* () {
        const [address] = yield* analytics.resolveTokens(token)
        if (address === undefined) return null
        const [page, flows, { source, demo }] = yield* Effect.all([
          analytics.transactions({ token: address, limit: TRADES }),
          Effect.forEach(TIMEFRAMES, (tf) => models.flows(tf, 1, address).pipe(Effect.map((f) => f.value))),
          models.source()
        ])
        const tokenFlows = flows.map((f) => f.tokens[0] ?? null)
        if (page.transactions.length === 0 && tokenFlows.every((f) => f === null) && flows.every((f) => f.excluded.exchange_housekeeping.count === 0)) return null
        const symbol = page.transactions[0]?.symbol ?? tokenFlows.find((f) => f !== null)?.symbol ?? maskAddress(address)
        return {
          // Newest first by time: the page is the newest stored, and the demo history stores older blocks after
          // newer ones, so storage order is not time order.
          token: address, symbol, trades: [...page.transactions].sort((a, b) => Date.parse(b.ts) - Date.parse(a.ts) || b.id - a.id),
          flows: { "1H": tokenFlows[0] ?? null, "24H": tokenFlows[1] ?? null, "7D": tokenFlows[2] ?? null },
          excluded: { "1H": flows[0]!.excluded, "24H": flows[1]!.excluded, "7D": flows[2]!.excluded },
          meta: { source, demo, generated_at: new Date().toISOString() }
        }
      })
  })

  // Read often by every open console while it replays; one database read a second is enough.
  const historyReplay = yield* makeHistoryReplay
  const replay = yield* memo({ ttl: "1 second", capacity: 1, compute: (_: "replay") => historyReplay })


  return [
    route(ConsoleEndpoints.history, { guard: Guard.anon, handler: () => replay.get("replay") }),
    route(ConsoleEndpoints.token, {
      guard: guards.optionalUser,
      handler: ({ params, auth }) =>
        Effect.gen(function* () {
          const found = yield* detail.get(params.token.toLowerCase())
          if (found === null) return yield* Effect.fail(new NotFound({ message: `No token ${params.token} in the whale records`, code: "token_not_found" }))
          const delay = auth === null ? ws.anonDelayMs : 0
          return {
            ...found,
            trades: delay > 0 ? anonymousTrades(found.trades, Date.now(), delay) : found.trades,
            delay_ms: delay
          } satisfies TokenDetail
        })
    })
  ]
})
