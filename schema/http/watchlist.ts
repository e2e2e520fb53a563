/** Wire contracts of the watchlist (server/domains/watchlist), shared with the console. */
import { z } from "zod"
import { intParam } from "../common"
import { endpoint } from "./endpoint"

/** A token: a 0x address or a known symbol (`ETH` included). */
export const AddWatchlistRequest = z.object({ token: z.string().trim().min(1).max(64) })
export const ItemParams = z.object({ item_id: intParam({ min: 1 }) })
export const QuickAddQuery = z.object({ ref: z.string().max(2000).optional().default("") })
export const QuickAddForm = z.object({ ref: z.string().max(2000), _csrf: z.string().max(200).optional() })
export const InterestQuery = z.object({ s: z.string().max(2000).optional().default("") })

export const WatchlistItem = z.object({
  id: z.number().int(),
  token: z.string(),
  symbol: z.string(),
  added_at: z.string(),
  price_at_add_usd: z.number().nullable(),
  price_usd: z.number().nullable(),
  /** Percent change of the price since the item was added; null without both prices. */
  change_pct: z.number().nullable(),
  flow_24h: z.object({ buy_usd: z.number(), sell_usd: z.number(), net_usd: z.number(), trades: z.number().int() }),
  /**
   * The token's open (PENDING) pick: live for pro tier and above, PICKS_FREE_DELAY_HOURS after its flag for others
   * (as on /api/picks2/recent); `change_since_flag_pct` is the current price against the entry price.
   */
  open_pick: z.object({
    id: z.number().int(), flagged_at: z.string(), entry_price: z.number().nullable(), conviction: z.number(), whales: z.number().int(),
    change_since_flag_pct: z.number().nullable()
  }).nullable()
})
export type WatchlistItem = z.infer<typeof WatchlistItem>

export const Watchlist = z.object({
  items: z.array(WatchlistItem),
  cap: z.number().int(),
  pending: z.array(z.object({ token: z.string(), symbol: z.string() }))
})
export type Watchlist = z.infer<typeof Watchlist>

export const AddWatchlistResponse = z.object({ created: z.boolean(), item: WatchlistItem })
export const RemovedResponse = z.object({ ok: z.literal(true) })
/** A verified account's token joins at once; an unverified one's waits for the verification. */
export const PendingResponse = z.union([
  AddWatchlistResponse.extend({ pending: z.literal(false) }),
  z.object({ pending: z.literal(true), token: z.string(), symbol: z.string() })
])

/** One live update on the user's topic (`user:<id>`, kind `watchlist`): a whale trade of a watched token. */
export const WatchlistLive = z.object({
  item_id: z.number().int(),
  token: z.string(),
  symbol: z.string(),
  price_usd: z.number().nullable(),
  category: z.enum(["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"]),
  usd: z.number().nullable(),
  ts: z.string()
})
export type WatchlistLive = z.infer<typeof WatchlistLive>

/** On the same topic and kind: a reorg retracted a trade of a watched token that was shown live. */
export const WatchlistLiveRetraction = z.object({ item_id: z.number().int(), token: z.string(), tx_hash: z.string(), retracted: z.literal(true) })
export type WatchlistLiveRetraction = z.infer<typeof WatchlistLiveRetraction>

const tags = ["watchlist"]

export const WatchlistEndpoints = {
  list: endpoint({
    method: "GET", path: "/api/watchlist", summary: "The caller's watchlist: price, change since added, 24 h whale flow, open pick", tags, response: Watchlist
  }),
  add: endpoint({
    method: "POST", path: "/api/watchlist", summary: "Add a token (address or known symbol); an existing one answers 200 with the item", tags,
    body: AddWatchlistRequest, response: AddWatchlistResponse
  }),
  remove: endpoint({
    method: "DELETE", path: "/api/watchlist/{item_id}", summary: "Remove an item (another user's item answers 404)", tags, params: ItemParams, response: RemovedResponse
  }),
  addPending: endpoint({
    method: "POST", path: "/api/watchlist/pending", summary: "Remember a token for a just-signed-up user; it joins the watchlist once the e-mail is verified",
    tags, body: AddWatchlistRequest, response: PendingResponse
  }),
  /** The pages people reach from e-mails: a bad or expired link shows a friendly page (200), never an error. */
  quickAddPage: endpoint({
    method: "GET", path: "/watchlist/quick-add", summary: "One-tap confirm page for a token linked from an e-mail (signed, expiring `ref`)", tags,
    query: QuickAddQuery, produces: "text/html"
  }),
  quickAdd: endpoint({
    method: "POST", path: "/watchlist/quick-add", summary: "Confirm a quick add (signed in; otherwise sign in and come back)", tags,
    body: QuickAddForm, response: AddWatchlistResponse
  }),
  interest: endpoint({
    method: "GET", path: "/watchlist/interest", summary: "Remember a category picked in an e-mail (signed `s`), then show it", tags,
    query: InterestQuery, produces: "text/html"
  })
}
