/**
 * A token's whale history (`GET /api/v1/tokens/{token}/history`, and the MCP tool `token_history`): per hour (≤ 30
 * days) or per day (≤ 2 years), every bucket of the range with DEX buy/sell/net USD, trades, distinct whales and the
 * volume-weighted price of the bucket's priced whale trades — read from the roll-ups (HistoryRepo), never whale_tx.
 * The token is an address or a symbol (`ETH` = WETH): an unknown one is a 404, a symbol naming several tokens a 409
 * listing their addresses. The range's edges are floored to the bucket; a range over the interval's bound is a 422.
 */
import { Clock, Data, Effect } from "effect"
import {
  HISTORY_DEFAULT_MS, HISTORY_MAX_MS, HOUR_MS, DAY_MS, type HistoryBucket, type HistoryInterval, type TokenHistoryData, type TokenHistoryQuery
} from "../../../schema/http/dataapi-live"
import { cents, priceOrNull } from "../../../schema/numbers"
import { Analytics } from "./Analytics"
import { HistoryRepo } from "./HistoryRepo"
import { displaySymbol, isAddress } from "./Tokens"
import { isoWithOffset } from "./Windows"
import { ValidationFailed } from "../../platform/http/Errors"

/** No token with that address or symbol (the gateways answer 404). */
export class HistoryTokenUnknown extends Data.TaggedError("HistoryTokenUnknown")<{ readonly token: string }> {}
/** A symbol naming several tokens (the gateways answer 409 with the addresses). */
export class HistoryTokenAmbiguous extends Data.TaggedError("HistoryTokenAmbiguous")<{ readonly token: string; readonly addresses: ReadonlyArray<string> }> {}

const invalid = (loc: string, msg: string, input: unknown) =>
  new ValidationFailed({ issues: [{ type: "value_error", loc: ["query", loc], msg, input }] })

const floorTo = (ms: number, interval: HistoryInterval) => {
  const step = interval === "hour" ? HOUR_MS : DAY_MS
  return Math.floor(ms / step) * step
}

export class TokenHistory extends Effect.Service<TokenHistory>()("app/analytics/TokenHistory", {
  dependencies: [HistoryRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* HistoryRepo
    const analytics = yield* Analytics

    /** The one token an address or symbol names: 404 when none, 409 (with the addresses) when several. */
    const resolve = Effect.fn("TokenHistory.resolve")(function* (token: string) {
      const addresses = isAddress(token) ? [token.toLowerCase()] : yield* analytics.resolveTokens(token)
      if (addresses.length > 1) {
        return yield* Effect.fail(new HistoryTokenAmbiguous({ token, addresses: [...addresses].sort() }))
      }
      const address = addresses[0]
      const symbol = address === undefined ? null : yield* repo.tokenSymbol(address)
      if (address === undefined || symbol === null) return yield* Effect.fail(new HistoryTokenUnknown({ token }))
      return { address, symbol: displaySymbol(address, symbol) }
    })

    /** The range asked, floored to the bucket, checked against the interval's bound (422 past it). */
    const range = (q: TokenHistoryQuery, now: number) => {
      const to = q.to ?? now
      const from = q.from ?? to - HISTORY_DEFAULT_MS[q.interval]
      if (from >= to) return Effect.fail(invalid("from", "from must be before to", q.from ?? null))
      if (to - from > HISTORY_MAX_MS[q.interval]) {
        return Effect.fail(invalid("from", `the range of interval=${q.interval} is at most ${HISTORY_MAX_MS[q.interval] / DAY_MS} days`, q.from ?? null))
      }
      return Effect.succeed({ from: floorTo(from, q.interval), to })
    }

    const history = Effect.fn("TokenHistory.history")(function* (token: string, q: TokenHistoryQuery) {
      const { from, to } = yield* range(q, yield* Clock.currentTimeMillis)
      const t = yield* resolve(token)
      const [rows, prices] = yield* Effect.all([
        repo.buckets(t.address, q.interval, new Date(from), new Date(to)), repo.prices(t.address, q.interval, new Date(from), new Date(to))
      ])
      const byT = new Map(rows.map((r) => [r.t.getTime(), r]))
      const priceByT = new Map(prices.map((p) => [p.t.getTime(), p]))
      const step = q.interval === "hour" ? HOUR_MS : DAY_MS
      const buckets: Array<HistoryBucket> = []
      for (let at = from; at < to; at += step) {
        const r = byT.get(at)
        const p = priceByT.get(at)
        buckets.push({
          t: isoWithOffset(at),
          buy_usd: cents(r?.buy ?? 0),
          sell_usd: cents(r?.sell ?? 0),
          net_usd: cents((r?.buy ?? 0) - (r?.sell ?? 0)),
          trades: r?.trades ?? 0,
          whales: r?.whales ?? 0,
          price_usd: p !== undefined && p.amount > 0 ? priceOrNull(p.usd / p.amount) : null
        })
      }
      return { token: t.address, symbol: t.symbol, interval: q.interval, from: isoWithOffset(from), to: isoWithOffset(to), buckets } satisfies TokenHistoryData
    })

    return { resolve, history } as const
  })
}) {}
