/**
 * The per-user watchlist (§4.12). An item is a token (lower-case address; `ETH` is WETH) with the price known when
 * it was added. Listing adds the current price (newest priced whale trade), the change since added, the 24 h whale
 * flow (analytics) and the token's open pick (picks domain; pro+ at once, others after the picks' free delay).
 *
 * Caps per tier (documented choice): free 10, pro 50, alpha 100, whale 250, staff 1000.
 * Pending: `addPending` remembers a token for a just-signed-up user; the first time the user touches the watchlist
 * with a verified address (list, add, quick-add), pending tokens join it.
 * E-mailed links (Tokens.ts `signLink`, own HKDF keys): quick-add `ref` = {t: token, s: symbol}, valid 14 days;
 * interest `s` = {e: email, c: category}, valid 90 days.
 */
import { Clock, Effect, Redacted } from "effect"
import { tierAtLeast, type Tier } from "../../../schema/tiers"
import type { WatchlistItem } from "../../../schema/http/watchlist"
import { AppConfig } from "../../platform/Config"
import { Analytics } from "../analytics/Analytics"
import { Chain } from "../chain/Chain"
import { Picks } from "../picks/Picks"
import { purposeKey, signLink, verifyLink } from "../email/Tokens"
import { ItemNotFound, UnknownToken, WatchlistFull } from "./Errors"
import { type ItemRow, WatchlistRepo } from "./Repo"
import { cents, priceOrNull } from "../../../schema/numbers"

export const CAPS: Record<Tier, number> = { anon: 0, free: 10, pro: 50, alpha: 100, whale: 250, staff: 1000 }
export const capOf = (tier: Tier) => CAPS[tier] ?? 0

export const QUICK_ADD_TTL_SECONDS = 14 * 24 * 3600
export const INTEREST_TTL_SECONDS = 90 * 24 * 3600

export const CATEGORIES: Record<string, { readonly title: string; readonly about: string }> = {
  majors: { title: "Majors", about: "ETH and tokenised bitcoin (WBTC, cbBTC): where the largest wallets park size." },
  defi: { title: "DeFi", about: "Lending, exchange and yield protocol tokens that whales rotate through." },
  memecoins: { title: "Memecoins", about: "High-volatility community tokens, where whale entries and exits move prices most." },
  ai: { title: "AI tokens", about: "Tokens of AI and compute networks." },
  l2: { title: "Layer 2s", about: "Rollup and scaling network tokens." },
  "exchange-flows": { title: "Exchange flows", about: "Whale deposits to and withdrawals from exchanges: who is getting ready to sell, who is taking custody." }
}

const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"

export interface Caller {
  readonly id: number
  readonly tier: Tier
  readonly emailVerified: boolean
}

export class Watchlist extends Effect.Service<Watchlist>()("app/Watchlist", {
  dependencies: [WatchlistRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WatchlistRepo
    const analytics = yield* Analytics
    const chain = yield* Chain
    const picks = yield* Picks
    const secret = (yield* AppConfig).sessionSecret
    const quickKey = purposeKey(Redacted.value(secret), "watchlist-quick-add")
    const interestKey = purposeKey(Redacted.value(secret), "watchlist-interest")
    const nowSeconds = Clock.currentTimeMillis.pipe(Effect.map((ms) => Math.floor(ms / 1000)))

    /** A token as the user typed it → the known token, or UnknownToken. */
    const resolve = Effect.fn("Watchlist.resolve")(function* (input: string) {
      const q = input.trim().toUpperCase() === "ETH" ? WETH : input.trim()
      const [found] = yield* chain.tokensNamed(q)
      if (!found) return yield* Effect.fail(new UnknownToken({ token: input }))
      return { token: found.address, symbol: found.address === WETH ? "ETH" : found.symbol }
    })

    const view = (rows: ReadonlyArray<ItemRow>, tier: Tier) =>
      Effect.gen(function* () {
        if (rows.length === 0) return [] as Array<WatchlistItem>
        const tokens = [...new Set(rows.map((r) => r.token))]
        const [prices, window, open] = yield* Effect.all(
          [chain.lastPrices(tokens), analytics.tokenWindow("24H"), picks.openPicksFor(tokens, tierAtLeast(tier, "pro"))], { concurrency: 3 })
        const flows = new Map(window.map((w) => [w.token, w]))
        return rows.map((r): WatchlistItem => {
          const price = prices.get(r.token) ?? null
          const f = flows.get(r.token)
          return {
            id: r.id, token: r.token, symbol: r.symbol, added_at: r.added_at.toISOString(),
            price_at_add_usd: priceOrNull(r.price_at_add_usd), price_usd: priceOrNull(price),
            change_pct: price !== null && r.price_at_add_usd ? cents(((price - r.price_at_add_usd) / r.price_at_add_usd) * 100) : null,
            flow_24h: f
              ? { buy_usd: cents(f.dex_buy_usd), sell_usd: cents(f.dex_sell_usd), net_usd: cents(f.dex_buy_usd - f.dex_sell_usd + f.exchange_withdraw_usd - f.exchange_deposit_usd), trades: f.records }
              : { buy_usd: 0, sell_usd: 0, net_usd: 0, trades: 0 },
            open_pick: ((p) => (p === undefined ? null : {
              id: p.id, flagged_at: p.flagged_at, entry_price: p.entry_price, conviction: p.conviction, whales: p.whales,
              change_since_flag_pct: price !== null && p.entry_price ? cents(((price - p.entry_price) / p.entry_price) * 100) : null
            }))(open.get(r.token))
          }
        })
      })

    const insert = Effect.fn("Watchlist.insert")(function* (caller: Caller, t: { token: string; symbol: string }, source: ItemRow["source"]) {
      const existing = yield* repo.byToken(caller.id, t.token)
      if (existing) return { created: false, row: existing }
      const cap = capOf(caller.tier)
      if ((yield* repo.count(caller.id)) >= cap) return yield* Effect.fail(new WatchlistFull({ cap }))
      const price = (yield* chain.lastPrices([t.token])).get(t.token) ?? null
      const row = yield* repo.insert({ userId: caller.id, token: t.token, symbol: t.symbol, price, source })
      return row ? { created: true, row } : { created: false, row: (yield* repo.byToken(caller.id, t.token))! }
    })

    /** Moves a verified user's pending tokens onto the watchlist (as far as the cap allows). */
    const promotePending = Effect.fn("Watchlist.promotePending")(function* (caller: Caller) {
      if (!caller.emailVerified) return 0
      let moved = 0
      for (const p of yield* repo.pending(caller.id)) {
        const added = yield* insert(caller, p, "pending").pipe(Effect.catchTag("WatchlistFull", () => Effect.succeed(null)))
        if (added === null) break
        yield* repo.dropPending(caller.id, p.token)
        if (added.created) moved++
      }
      return moved
    })

    const list = Effect.fn("Watchlist.list")(function* (caller: Caller) {
      yield* promotePending(caller)
      const [rows, pending] = yield* Effect.all([repo.items(caller.id), repo.pending(caller.id)])
      return { items: yield* view(rows, caller.tier), cap: capOf(caller.tier), pending: [...pending] }
    })

    const add = Effect.fn("Watchlist.add")(function* (caller: Caller, input: string, source: ItemRow["source"] = "manual") {
      yield* promotePending(caller)
      const t = yield* resolve(input)
      const { created, row } = yield* insert(caller, t, source)
      return { created, item: (yield* view([row], caller.tier))[0]! }
    })

    const remove = Effect.fn("Watchlist.remove")(function* (caller: Caller, id: number) {
      if (!(yield* repo.remove(caller.id, id))) return yield* Effect.fail(new ItemNotFound({ id }))
      return { ok: true as const }
    })

    /** Remembers a token for a user whose address is not verified yet (verified users get it at once). */
    const addPending = Effect.fn("Watchlist.addPending")(function* (caller: Caller, input: string) {
      const t = yield* resolve(input)
      if (caller.emailVerified) return { pending: false as const, ...(yield* add(caller, t.token)) }
      yield* repo.addPending(caller.id, t.token, t.symbol)
      return { pending: true as const, token: t.token, symbol: t.symbol }
    })

    /** A quick-add link for e-mails (the picks mails). */
    const quickAddRef = Effect.fn("Watchlist.quickAddRef")(function* (token: string, symbol: string) {
      return signLink(quickKey, { t: token, s: symbol }, (yield* nowSeconds) + QUICK_ADD_TTL_SECONDS)
    })
    const readQuickAdd = Effect.fn("Watchlist.readQuickAdd")(function* (ref: string) {
      const check = verifyLink(quickKey, ref, yield* nowSeconds)
      if (!check.ok) return { ok: false as const, reason: check.reason }
      const { t, s } = check.payload
      return typeof t === "string" && typeof s === "string" ? { ok: true as const, token: t, symbol: s } : { ok: false as const, reason: "invalid" as const }
    })

    const interestLink = Effect.fn("Watchlist.interestLink")(function* (email: string, category: string) {
      return signLink(interestKey, { e: email.toLowerCase(), c: category }, (yield* nowSeconds) + INTEREST_TTL_SECONDS)
    })
    /** Remembers the category an e-mail reader picked; returns it, or why the link is not usable. */
    const rememberInterest = Effect.fn("Watchlist.rememberInterest")(function* (s: string, caller: { id: number; email: string } | null) {
      const check = verifyLink(interestKey, s, yield* nowSeconds)
      if (!check.ok) return { ok: false as const, reason: check.reason }
      const { e, c } = check.payload
      if (typeof e !== "string" || typeof c !== "string" || !(c in CATEGORIES)) return { ok: false as const, reason: "invalid" as const }
      yield* repo.rememberInterest(e, c, caller && caller.email.toLowerCase() === e ? caller.id : null)
      return { ok: true as const, category: c, ...CATEGORIES[c]! }
    })

    return { resolve, list, add, remove, addPending, promotePending, quickAddRef, readQuickAdd, interestLink, rememberInterest, watchers: repo.watchers } as const
  })
}) {}
