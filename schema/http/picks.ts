/**
 * Picks analytics (spec §4.10, §2.5): whale-flagged tokens graded on the 7-day-close rule, with the dated exits of
 * the whales who flagged them, and the hash-chained ledger. Returns are fractions (0.25 = +25 %); times ISO 8601 UTC.
 * Addresses are shown truncated (`0x1234…abcd`).
 */
import { z } from "zod"
import { intParam } from "../common"
import { endpoint } from "./endpoint"

export const PickStatus = z.enum(["PENDING", "GRADED", "UNPRICED", "VOID"])
export type PickStatus = z.infer<typeof PickStatus>

/** A rate with its n and 95 % Wilson interval; all null (and `insufficient`) below the minimum n. */
export const Rate = z.object({
  hits: z.number().int(),
  n: z.number().int(),
  value: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  insufficient: z.boolean()
})
/** A median with its 95 % order-statistic interval; null below the minimum n. */
export const Median = z.object({ n: z.number().int(), value: z.number().nullable(), low: z.number().nullable(), high: z.number().nullable() })
export const Bin = z.object({ from: z.number(), to: z.number().nullable(), count: z.number().int() })

export const PickRow = z.object({
  id: z.number().int(),
  symbol: z.string(),
  token: z.string(),
  flagged_at: z.string(),
  status: PickStatus,
  /** Number of flagging addresses. */
  whales: z.number().int(),
  conviction: z.number(),
  entry_price: z.number().nullable(),
  /** Highest reading: highest price in the 7 days (so far, while PENDING) / entry − 1. */
  peak_return: z.number().nullable(),
  /** 7-day close / entry − 1 (GRADED only). */
  close_return: z.number().nullable(),
  max_adverse: z.number().nullable(),
  exited_before_close: z.boolean().nullable(),
  /** Dated whale exits recorded so far. */
  exits: z.number().int(),
  graded_at: z.string().nullable()
})
export type PickRow = z.infer<typeof PickRow>

export const PickRule = z.object({
  min_whales: z.number().int(),
  window_hours: z.number(),
  horizon_days: z.number().int(),
  min_n: z.number().int()
})

export const Summary = z.object({
  rule: PickRule,
  counts: z.object({
    total: z.number().int(), pending: z.number().int(), graded: z.number().int(), unpriced: z.number().int(),
    void: z.number().int(), tokens: z.number().int(), first_flagged_at: z.string().nullable(), last_flagged_at: z.string().nullable()
  }),
  /** Share of graded picks whose highest reading reached +10 / +25 / +50 / +100 %. */
  runners: z.object({ gte_10: Rate, gte_25: Rate, gte_50: Rate, gte_100: Rate }),
  close: z.object({ positive: Rate, median: Median, mean: z.number().nullable() }),
  peak_vs_close: z.object({
    median_peak: Median,
    median_close: Median,
    /** Highest reading − 7-day close. */
    median_giveback: Median,
    /** Share of runners (+10 % or more) that still closed above entry. */
    runners_closed_up: Rate
  }),
  follow_through: z.object({
    /** Share of graded picks where a flagging whale had exited before the close. */
    exited_before_close: Rate,
    closed_up_when_exited: Rate,
    closed_up_when_held: Rate,
    median_first_exit_hours: Median
  }),
  demo: z.boolean()
})
export type Summary = z.infer<typeof Summary>

export const Distributions = z.object({
  peak: z.array(Bin),
  close: z.array(Bin),
  /** Median return at flag + d × 24 h, d = 1..7, over graded picks. */
  horizon: z.array(z.object({ day: z.number().int(), median: Median })),
  monthly: z.array(z.object({
    month: z.string(), picks: z.number().int(), graded: z.number().int(), positive: Rate, median_close: Median, median_peak: Median
  }))
})
export type Distributions = z.infer<typeof Distributions>

export const BandOutcome = z.object({ band: z.string(), picks: z.number().int(), positive: Rate, median_close: Median, median_peak: Median })
export const Bands = z.object({ by_whales: z.array(BandOutcome), by_conviction: z.array(BandOutcome) })
export type Bands = z.infer<typeof Bands>

export const TokensQuery = z.object({ limit: intParam({ min: 1, max: 250, default: 60 }) })
export const TokenRow = z.object({
  symbol: z.string(), token: z.string(), picks: z.number().int(), graded: z.number().int(), pending: z.number().int(),
  last_flagged_at: z.string(), median_close: z.number().nullable(), best_peak: z.number().nullable(), positive: Rate
})
export const Tokens = z.object({ tokens: z.array(TokenRow) })
export type Tokens = z.infer<typeof Tokens>

export const SymbolParams = z.object({ symbol: z.string().trim().min(1).max(32).regex(/^[A-Za-z0-9._$+-]+$/, "not a token symbol") })
export const TokenPicks = z.object({ symbol: z.string(), picks: z.array(PickRow) })

export const PicksList = z.object({ picks: z.array(PickRow) })
export type PicksList = z.infer<typeof PicksList>

export const Recent = z.object({
  picks: z.array(PickRow),
  /** PENDING picks younger than this are shown to pro tier and above only (others see them after the delay). */
  delay_hours: z.number(),
  withheld: z.number().int()
})
export type Recent = z.infer<typeof Recent>

export const Behaviour = z.object({
  exits: z.number().int(),
  picks_with_exits: z.number().int(),
  /** Hours from the flag to each dated exit. */
  hold_hours: Median,
  exit_move: Median,
  routes: z.object({ dex_sell: z.number().int(), exchange_deposit: z.number().int() }),
  by_day: z.array(z.object({ day_offset: z.number().int(), exits: z.number().int() })),
  exited_within_7d: Rate
})
export type Behaviour = z.infer<typeof Behaviour>

export const WalletOrder = z.enum(["picks", "exits", "hold", "move"])
export const WalletsQuery = z.object({
  order: WalletOrder.optional().default("picks"),
  min_picks: intParam({ min: 1, max: 500, default: 1 })
})
/** A wallet's record across picks (not a tracked_wallets row). */
export const WalletPickStats = z.object({
  /** Truncated address. */
  wallet: z.string(),
  /** Picks this wallet exited (a dated exit after the flag). */
  picks: z.number().int(),
  median_hold_hours: z.number().nullable(),
  median_exit_move: z.number().nullable(),
  dex_sells: z.number().int(),
  exchange_deposits: z.number().int()
})
export const Wallets = z.object({ wallets: z.array(WalletPickStats), note: z.string() })
export type Wallets = z.infer<typeof Wallets>

export const PickIdParams = z.object({ pick_id: intParam({ min: 1 }) })
export const ExitRow = z.object({
  wallet: z.string(), at: z.string(), day_offset: z.number().int(), hours: z.number(), move: z.number().nullable(),
  route: z.enum(["dex_sell", "exchange_deposit"])
})
export const ExitTiming = z.object({ pick: PickRow, exits: z.array(ExitRow) })
export type ExitTiming = z.infer<typeof ExitTiming>

export const TopRunnersQuery = z.object({ limit: intParam({ min: 1, max: 60, default: 25 }) })
export const ExitTimingIndexQuery = z.object({ min_exits: intParam({ min: 2, max: 200, default: 8 }) })

export const LedgerDay = z.object({ day: z.string(), root: z.string(), last_seq: z.number().int(), entries: z.number().int() })
export const LedgerSummary = z.object({
  head: z.object({ seq: z.number().int(), hash: z.string() }).nullable(),
  days: z.array(LedgerDay),
  algorithm: z.string(),
  verify: z.string()
})
export const LedgerEntriesQuery = z.object({
  after_seq: intParam({ min: 0, default: 0 }),
  limit: intParam({ min: 1, max: 5000, default: 1000 })
})
export const LedgerEntryRow = z.object({
  seq: z.number().int(), at: z.string(), kind: z.enum(["flag", "exit", "grade", "void", "rebuild"]), pick_id: z.number().int().nullable(),
  payload: z.string(), prev_hash: z.string(), hash: z.string()
})
export const LedgerEntries = z.object({ entries: z.array(LedgerEntryRow), next_after_seq: z.number().int().nullable() })

// ------------------------------------------------------------------------------------------------------------
// Endpoints: everything graded is public; `recent` shows young PENDING picks to pro tier and above only

const tags = ["picks"]

export const PicksEndpoints = {
  summary: endpoint({
    method: "GET", path: "/api/picks2/summary", summary: "Headline counts, runner distribution, peak versus close, follow-through (rates with n and 95 % intervals)",
    tags, response: Summary
  }),
  distributions: endpoint({
    method: "GET", path: "/api/picks2/distributions", summary: "Histograms of highest reading and 7-day close, median return per day 1–7, monthly series",
    tags, response: Distributions
  }),
  bands: endpoint({ method: "GET", path: "/api/picks2/bands", summary: "Outcome by number of flagging addresses and by conviction band", tags, response: Bands }),
  tokens: endpoint({ method: "GET", path: "/api/picks2/tokens", summary: "One row per picked token", tags, query: TokensQuery, response: Tokens }),
  token: endpoint({ method: "GET", path: "/api/picks2/token/{symbol}", summary: "The dated picks of one token", tags, params: SymbolParams, response: TokenPicks }),
  /** Streamed (chunked), a batch of rows per query: no cap, and no body held whole in memory. */
  picks: endpoint({ method: "GET", path: "/api/picks2/picks", summary: "Every graded pick, one row each (no server-side cap)", tags, response: PicksList }),
  recent: endpoint({
    method: "GET", path: "/api/picks2/recent", summary: "Recently flagged picks, PENDING included (live PENDING picks: pro tier or higher)", tags, response: Recent
  }),
  behaviour: endpoint({
    method: "GET", path: "/api/picks2/behaviour", summary: "What tracked whales did after a pick: hold time, exit move, route", tags, response: Behaviour
  }),
  wallets: endpoint({
    method: "GET", path: "/api/picks2/wallets", summary: "Tracked wallets' activity on picks they exited (truncated addresses)", tags,
    query: WalletsQuery, response: Wallets
  }),
  exitTiming: endpoint({
    method: "GET", path: "/api/picks2/exit-timing/{pick_id}", summary: "Every dated whale exit of one pick", tags, params: PickIdParams, response: ExitTiming
  }),
  topRunners: endpoint({
    method: "GET", path: "/api/picks2/top-runners", summary: "Highest readings within the 10–300 % band", tags, query: TopRunnersQuery, response: PicksList
  }),
  exitTimingIndex: endpoint({
    method: "GET", path: "/api/picks2/exit-timing", summary: "Picks with enough dated exits to chart, at most two per token", tags,
    query: ExitTimingIndexQuery, response: PicksList
  }),
  ledger: endpoint({
    method: "GET", path: "/api/picks2/ledger", summary: "The picks ledger: head and daily root hashes, and how to verify them", tags, response: LedgerSummary
  }),
  ledgerEntries: endpoint({
    method: "GET", path: "/api/picks2/ledger/entries", summary: "Ledger entries in order, with payloads and hashes", tags,
    query: LedgerEntriesQuery, response: LedgerEntries
  })
}
