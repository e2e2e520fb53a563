/**
 * MCP tools over the expanded data API's reads (issue 29): a token's history and a bounded recent-trades query.
 * Each answer is capped to a size an agent can take (MAX_BUCKETS buckets, MAX_TRADES trades) with a cursor beyond
 * it (`next_from`, `next_before_id`). Per-wallet flows are not here: that service lives on the wallet-page branch.
 */
import { Effect } from "effect"
import { z } from "zod"
import { HistoryInterval, Instant, TokenHistoryData } from "../../../schema/http/dataapi-live"
import { TransactionsData } from "../../../schema/http/dataapi"
import { WhaleCategory } from "../../../schema/records"
import { Analytics } from "../../domains/analytics/Analytics"
import { cached } from "../../domains/analytics/ReadModels"
import { TokenHistory } from "../../domains/analytics/TokenHistory"
import { ErrorCode, RpcFailure, type Tool } from "./Protocol"

export const MAX_BUCKETS = 168
export const MAX_TRADES = 50

const token = z.string().min(1).max(64).describe("Token address (0x…) or symbol (ETH = WETH)")

export const makeLiveTools = Effect.gen(function* () {
  const history = yield* TokenHistory
  const analytics = yield* Analytics
  const tools: ReadonlyArray<Tool> = [
    {
      name: "token_history", title: "A token's whale history",
      description:
        `Whale DEX buy/sell/net volume (USD), trades, distinct whales and volume-weighted price of one token per hour (range ≤ 30 days) or day (≤ 2 years). ` +
        `At most ${MAX_BUCKETS} buckets per answer, oldest first: when more remain, call again with from = next_from.`,
      input: z.object({
        token,
        interval: HistoryInterval.default("day").describe("hour or day (default)"),
        from: z.string().max(40).optional().describe("Start, ISO 8601 or epoch seconds (default: 24 h or 30 days before to)"),
        to: z.string().max(40).optional().describe("End (exclusive), ISO 8601 or epoch seconds (default: now)")
      }).strict(),
      output: TokenHistoryData.extend({ next_from: z.string().nullable() }),
      run: (a: { token: string; interval: "hour" | "day"; from?: string; to?: string }) =>
        Effect.gen(function* () {
          const from = a.from === undefined ? undefined : Instant.safeParse(a.from)
          const to = a.to === undefined ? undefined : Instant.safeParse(a.to)
          if (from?.success === false || to?.success === false) return yield* Effect.fail(new RpcFailure(ErrorCode.InvalidParams, "from and to are ISO 8601 dates or epoch seconds"))
          const data = yield* history.history(a.token, { interval: a.interval, from: from?.data, to: to?.data })
          const more = data.buckets.length > MAX_BUCKETS
          return cached({ ...data, buckets: data.buckets.slice(0, MAX_BUCKETS), next_from: more ? data.buckets[MAX_BUCKETS]!.t : null })
        }).pipe(
          Effect.catchTags({
            HistoryTokenUnknown: (e) => Effect.fail(new RpcFailure(ErrorCode.InvalidParams, `No token ${e.token}`)),
            HistoryTokenAmbiguous: (e) => Effect.fail(new RpcFailure(ErrorCode.InvalidParams, `The symbol ${e.token} names several tokens: ask by address`, { addresses: e.addresses })),
            ValidationFailed: (e) => Effect.fail(new RpcFailure(ErrorCode.InvalidParams, e.issues[0]?.msg ?? "Invalid range", e.issues))
          })
        )
    },
    {
      name: "recent_trades", title: "Recent whale trades",
      description:
        `Stored whale trades, newest first, optionally for one token, wallet or category; at most ${MAX_TRADES} per answer: ` +
        "when next_before_id is not null, call again with before_id = next_before_id for older ones.",
      input: z.object({
        token: token.optional(),
        wallet: z.string().regex(/^0x[0-9a-fA-F]{40}$/).optional().describe("Wallet address"),
        category: WhaleCategory.optional(),
        before_id: z.number().int().min(1).optional().describe("Only trades older than this id (the previous answer's next_before_id)"),
        limit: z.number().int().min(1).max(MAX_TRADES).default(20).describe(`How many (1–${MAX_TRADES}, default 20)`)
      }).strict(),
      output: TransactionsData,
      run: (a: { token?: string; wallet?: string; category?: WhaleCategory; before_id?: number; limit: number }) =>
        analytics.transactions({ token: a.token, wallet: a.wallet?.toLowerCase(), category: a.category, before_id: a.before_id, limit: a.limit }).pipe(Effect.map(cached))
    }
  ]
  return tools
})
