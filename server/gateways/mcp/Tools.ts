/**
 * The MCP tools: each has an input JSON schema (from its zod schema), an output schema, and returns the read model
 * as `structuredContent` plus the same JSON as text. Free: the public (anonymous) view of every model.
 */
import { Effect } from "effect"
import { z } from "zod"
import { Positioning, Stats, Timeframe, TopTokens, WhaleIndex } from "../../../schema/http/analytics"
import { FlowsData, WalletSearchData } from "../../../schema/http/dataapi"
import { Recent, Summary } from "../../../schema/http/picks"
import { Analytics } from "../../domains/analytics/Analytics"
import { cached, ReadModels, type Cached } from "../../domains/analytics/ReadModels"
import { Picks, RECENT_LIMIT } from "../../domains/picks/Picks"
import { makePlaybookTools } from "../../domains/playbook/Mcp"
import { makeLiveTools } from "./LiveTools"
import type { Tool } from "./Protocol"

export type { Tool } from "./Protocol"

const jsonSchema = (schema: z.ZodType, io: "input" | "output") => {
  const json = z.toJSONSchema(schema, { io, target: "draft-7", unrepresentable: "any" }) as Record<string, unknown>
  delete json.$schema
  return json
}

export const describeTool = (t: Tool) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: jsonSchema(t.input, "input"),
  outputSchema: jsonSchema(t.output, "output"),
  annotations: { readOnlyHint: true, openWorldHint: false }
})

const NoArgs = z.object({}).strict()
const limit = (max: number, def: number) => z.number().int().min(1).max(max).default(def).describe(`How many (1–${max}, default ${def})`)
const timeframe = Timeframe.default("24H").describe("Window: 1H, 24H (default) or 7D")

export const makeTools = Effect.gen(function* () {
  const models = yield* ReadModels
  const analytics = yield* Analytics
  const picks = yield* Picks
  const tools: ReadonlyArray<Tool> = [
    {
      name: "whale_index", title: "Whale Sentiment Index",
      description: "Today's 0-100 whale buy/sell score (50 neutral) with its weighted components and 30 days of daily closes.",
      input: NoArgs, output: WhaleIndex, run: () => models.whaleIndex()
    },
    {
      name: "top_tokens", title: "Top tokens by whale volume",
      description: "Tokens with the most whale DEX volume in a window: buy, sell and net flow (USD), trades and whale count. Stablecoins excluded; ETH includes native ETH.",
      input: z.object({ timeframe, limit: limit(50, 10) }).strict(), output: TopTokens,
      run: (a: { timeframe: Timeframe; limit: number }) => models.topTokens(a.timeframe, a.limit)
    },
    {
      name: "site_stats", title: "Site stats",
      description: "Tracked whale wallets, 24h whale buy and sell volume (USD), transactions and the latest block.",
      input: NoArgs, output: Stats, run: () => models.stats()
    },
    {
      name: "whale_accumulation", title: "Whale accumulation",
      description: "Accumulation (positioning) of the majors and the most traded assets over 7 and 30 days: net flow, 0-100 score, cohort divergence.",
      input: NoArgs, output: Positioning, run: () => models.positioning("anon")
    },
    {
      name: "token_flows", title: "Token flows",
      description: "Per-token whale flows in a window by category: dex_buy_usd, dex_sell_usd, exchange_withdraw_usd, exchange_deposit_usd.",
      input: z.object({
        timeframe,
        token: z.string().min(1).max(64).optional().describe("Token address or symbol (ETH = WETH); all tokens when omitted"),
        limit: limit(100, 20)
      }).strict(),
      output: FlowsData,
      run: (a: { timeframe: Timeframe; token?: string; limit: number }) => models.flows(a.timeframe, a.limit, a.token)
    },
    {
      name: "wallet_search", title: "Search tracked wallets",
      description: "Find tracked whale wallets by address prefix (0x…) or by label, with their last 7 days of net flow.",
      input: z.object({ query: z.string().min(1).max(100).describe("Address prefix or part of a label"), limit: limit(50, 10) }).strict(),
      output: WalletSearchData,
      run: (a: { query: string; limit: number }) =>
        analytics.searchWallets(a.query, a.limit).pipe(Effect.map((wallets) => cached({ wallets })))
    },
    {
      name: "picks_summary", title: "Whale picks: graded outcomes",
      description:
        "Tokens flagged when several tracked whales became net DEX buyers within a window (a pick), graded on the 7-day close " +
        "(close 7 × 24 h after the flag / entry − 1; returns are fractions, 0.25 = +25 %): counts (pending, graded, unpriced), " +
        "runner rates (highest reading ≥ +10/25/50/100 %), share closing up, median close and highest reading, and what " +
        "happened when the flagging whales had exited before the close. Every rate has its n and a 95 % interval, and is null " +
        "(insufficient) below the minimum n. Observational, not advice.",
      input: NoArgs, output: Summary,
      run: () => picks.summary().pipe(Effect.map(cached))
    },
    {
      name: "recent_picks", title: "Recent whale picks",
      description:
        "The most recently flagged picks, newest first: symbol, flag time, number of flagging whales, conviction (0-100, fixed " +
        "at the flag), entry price, status (PENDING until 7 days after the flag, then GRADED or UNPRICED), highest reading so " +
        "far, 7-day close when graded, and dated whale exits so far. As for anonymous API callers, PENDING picks younger than " +
        "`delay_hours` are withheld (`withheld` says how many).",
      input: z.object({ limit: limit(RECENT_LIMIT, 20) }).strict(), output: Recent,
      run: (a: { limit: number }) => picks.recent(false, a.limit).pipe(Effect.map(cached))
    },
    ...(yield* makePlaybookTools),
    ...(yield* makeLiveTools)
  ]
  return tools
})
