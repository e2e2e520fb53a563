/**
 * The demo history: whale activity over [from, to) as normalized records, hour by hour. Pure: the records of an hour
 * are a function of (seed, hour, the wallets, the market), so a window generates the same whatever else is asked for.
 * DEMO DATA, not the chain: every record is stored with `source = demo`.
 *
 * Each hour, each wallet trades a Poisson number of times: its own rate × the time of day × the heat of what it
 * watches (a token's regime, a macro event). A trade is
 *  - a swap of a token against WETH or a stablecoin through one of the wallet's routers (`dex_buy`/`dex_sell`),
 *    its direction drawn from the token's regime as the wallet's style reads it; or
 *  - a deposit to, or withdrawal from, one of the wallet's exchanges (more deposits while a token is distributed).
 * Pumps and busts have participants: a few wallets picked by the seed that accumulate the token in its quiet phase
 * and exit during the run-up's reversal — the whale exits picks are graded against.
 * Around each macro event, macro-minded wallets pre-position in the 36 hours before (risk-off: sell ETH for
 * stablecoins and send ETH to exchanges; risk-on: the reverse, the stance fixed by the seed) and react in the
 * 4 hours after in the direction of the event's surprise, when activity runs several times its usual rate.
 *
 * Amounts are exact decimal strings of the token's decimals and consistent with the market's prices at the trade's
 * time: `usd = amount × price(token)`, and the counter amount is the same USD in WETH or the stablecoin.
 */
import { formatUnits } from "viem"
import type { TokenInfo, WhaleRecord } from "../Types"
import { eventsBetween, type MacroEvent } from "./Calendar"
import { DAY, HOUR, WETH, type Market, type Regime, type TokenGroup } from "./Market"
import { hashString, mix, normal, pickOne, pickWeighted, poisson, stream, unit, type Rand } from "./Random"
import type { DemoWallet, Style } from "./Wallets"

/** The demo chain's block clock (as DemoSource: block `anchorBlock` at `anchorTime`, one every `blockMs`). */
export interface BlockClock {
  readonly anchorBlock: number
  /** Unix seconds. */
  readonly anchorTime: number
  readonly blockMs: number
}

const hexWord = (n: number) => (n >>> 0).toString(16).padStart(8, "0")

export const DEFAULT_CLOCK: BlockClock = { anchorBlock: 20_000_000, anchorTime: 1_717_200_000, blockMs: 12_000 }

/** The number of the demo block that holds time `ms`. */
export const blockAt = (clock: BlockClock, ms: number) =>
  clock.anchorBlock + Math.floor((ms - clock.anchorTime * 1000) / clock.blockMs)

/** The timestamp (unix seconds) DemoSource gives block `n`. */
export const blockTime = (clock: BlockClock, n: number) =>
  clock.anchorTime + Math.floor(((n - clock.anchorBlock) * clock.blockMs) / 1000)

/**
 * The hash of history block `n`: a stand-in (history blocks are never served by the demo source, and keccak of
 * every block would cost more than the rest of the generation); unique per (seed, block).
 */
export const historyBlockHash = (seed: number, n: number) => {
  let hash = "0x"
  for (let j = 0; j < 7; j++) hash += hexWord(mix(seed, 0xb1, n, j))
  return hash + hexWord(n)
}

export interface HistoryInput {
  readonly seed: number
  readonly market: Market
  readonly wallets: ReadonlyArray<DemoWallet>
  readonly clock?: BlockClock
}

/** The event windows around a macro event. */
export const PRE_HOURS = 36
export const REACTION_HOURS = 4

/** The stance the macro wallets take before an event: true = risk-on (buy ETH), false = risk-off. */
export const riskOn = (seed: number, event: MacroEvent) => unit(seed, 0x0e, Math.floor(event.at / 60_000)) < 0.4

const STABLES = ["0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "0xdac17f958d2ee523a2206206994597c13d831ec7", "0x6b175474e89094c44da98b954eedeac495271d0f"]

interface HourView {
  readonly start: number
  readonly regimes: Map<string, Regime>
  /** Macro event windows touching this hour. */
  readonly pre: ReadonlyArray<MacroEvent>
  readonly reaction: ReadonlyArray<MacroEvent>
}

const styleRead = (style: Style, regime: Regime, lagged: Regime): number => {
  switch (style) {
    case "smart": return regime.bias
    case "momentum": return 0.8 * lagged.bias + (regime.phase === "run-up" ? 0.6 : 0)
    case "hodler": return 0.15 + 0.5 * regime.bias
    case "shuttler": return 0.4 * regime.bias
    case "trader": return 0.6 * regime.bias
  }
}

/** A generator of the demo history (see the header). */
export const makeHistory = (input: HistoryInput) => {
  const { seed, market, wallets } = input
  const clock = input.clock ?? DEFAULT_CLOCK
  const tokens = market.tokens
  const bySymbol = new Map(tokens.map((t) => [t.symbol, t]))
  const weth = tokens.find((t) => t.address === WETH)!
  const stables = STABLES.map((a) => tokens.find((t) => t.address === a)).filter((t): t is TokenInfo => t !== undefined)
  const swappable = tokens.filter((t) => !t.stable)
  const blockHash = (n: number) => historyBlockHash(seed, n)

  /** Whether wallet `w` takes part in the pump or bust of segment `index` of `token`. */
  const participates = (w: number, wallet: DemoWallet, token: TokenInfo, index: number) =>
    wallet.habit.style !== "hodler" && wallet.habit.style !== "shuttler" && unit(seed, 0x9a, index, w, hashString(token.address)) < 0.14

  const view = (start: number): HourView => {
    const regimes = new Map<string, Regime>()
    for (const t of tokens) regimes.set(t.address, market.regime(t, start + HOUR / 2))
    return {
      start, regimes,
      pre: eventsBetween(market.events, start, start + PRE_HOURS * HOUR + HOUR),
      reaction: eventsBetween(market.events, start - REACTION_HOURS * HOUR + 1, start + HOUR)
    }
  }

  const rawOf = (units: number, decimals: number) => {
    const shown = Math.min(decimals, 6)
    return BigInt(Math.round(units * 10 ** shown)) * 10n ** BigInt(decimals - shown)
  }

  const makeRecord = (
    key: readonly [number, number, number], ts: number, wallet: DemoWallet, token: TokenInfo, category: WhaleRecord["category"],
    usd: number, counter: TokenInfo | null, venue: string, rand: Rand
  ): WhaleRecord | null => {
    const price = market.usd(token, ts)
    const raw = rawOf(usd / price, token.decimals)
    if (raw <= 0n) return null
    const amount = formatUnits(raw, token.decimals)
    const value = Number(amount) * price
    const counterRaw = counter === null ? null : rawOf(value / market.usd(counter, ts), counter.decimals)
    const [h, w, k] = key
    let hash = "0x"
    for (let j = 0; j < 6; j++) hash += hexWord(mix(seed, h, w, k, j))
    hash += hexWord(h) + hexWord(((w << 16) | k) ^ mix(seed, 0x77))
    const n = blockAt(clock, ts)
    const usdRounded = Math.round(value * 100) / 100
    return {
      txHash: hash, logIndex: Math.floor(rand() * 400), block: n, blockHash: blockHash(n),
      ts: new Date(blockTime(clock, n) * 1000), wallet: wallet.address, token: token.address, symbol: token.symbol,
      decimals: token.decimals, category, amount, amountRaw: raw.toString(), usd: usdRounded, priceUsd: usdRounded / Number(amount),
      counterToken: counter?.address ?? null, counterSymbol: counter?.symbol ?? null,
      counterAmount: counter === null || counterRaw === null ? null : formatUnits(counterRaw, counter.decimals), venue
    }
  }

  /** One trade of `wallet` at `ts`: a swap or an exchange flow. */
  const trade = (hour: HourView, w: number, wallet: DemoWallet, k: number, rand: Rand): WhaleRecord | null => {
    const habit = wallet.habit
    const ts = hour.start + Math.floor(rand() * HOUR)
    const size = habit.sizeUsd * Math.exp(0.8 * normal(rand))
    const key = [Math.floor(hour.start / HOUR), w, k] as const
    const macro = habit.macro ? [...hour.reaction, ...hour.pre][0] : undefined

    if (macro !== undefined && rand() < 0.75) {
      const reacting = macro.at <= ts
      const buyEth = reacting ? market.surprise(macro) > 0 : riskOn(seed, macro)
      const follow = rand() < 0.85 ? buyEth : !buyEth
      if (rand() < 0.3) {
        const ex = pickOne(rand, habit.exchanges)
        return makeRecord(key, ts, wallet, weth, follow ? "exchange_withdraw" : "exchange_deposit", size, null, ex, rand)
      }
      return makeRecord(key, ts, wallet, weth, follow ? "dex_buy" : "dex_sell", size, pickOne(rand, stables), pickOne(rand, habit.routers), rand)
    }

    const lagged = (t: TokenInfo) => market.regime(t, ts - DAY)
    const boost = (t: TokenInfo) => {
      const r = hour.regimes.get(t.address)!
      const s = r.segment
      const special = (s.kind === "pump" || s.kind === "bust") && r.phase !== "cool" && participates(w, wallet, t, s.index)
      return special ? 6 : 1
    }
    if (rand() < habit.exchangeShare) {
      const r = rand()
      const token = r < 0.4 ? weth : r < 0.65 ? pickOne(rand, stables) : pickWeighted(rand, swappable, (t) => habit.groups[market.groupOf(t)] * boost(t))
      const bias = token.stable ? 0 : hour.regimes.get(token.address)!.bias
      const deposit = rand() < 0.5 - 0.3 * bias
      return makeRecord(key, ts, wallet, token, deposit ? "exchange_deposit" : "exchange_withdraw", size, null, pickOne(rand, habit.exchanges), rand)
    }

    const token = pickWeighted(rand, swappable, (t) => habit.groups[market.groupOf(t) as TokenGroup] * hour.regimes.get(t.address)!.heat * boost(t))
    const regime = hour.regimes.get(token.address)!
    const insider = boost(token) > 1
    const lean = insider
      ? (regime.phase === "accumulate" || regime.phase === "run-up" ? 0.9 : -0.9)
      : styleRead(habit.style, regime, lagged(token))
    const buy = rand() < 0.5 + 0.5 * Math.max(-0.95, Math.min(0.95, lean))
    const quote = token.address === WETH || token.eth_derivative || rand() > habit.wethQuote ? pickOne(rand, stables) : weth
    return makeRecord(key, ts, wallet, token, buy ? "dex_buy" : "dex_sell", size, quote, pickOne(rand, habit.routers), rand)
  }

  /** The records of the hour starting at `start` (a multiple of an hour), ordered by time. */
  const hour = (start: number): Array<WhaleRecord> => {
    const h = view(start)
    const hourOfDay = new Date(start).getUTCHours()
    const weekday = new Date(start).getUTCDay()
    const diurnal = (0.65 + 0.7 * Math.exp(-(((hourOfDay - 16) / 5) ** 2))) * (weekday === 0 || weekday === 6 ? 0.75 : 1)
    const out: Array<WhaleRecord> = []
    for (let w = 0; w < wallets.length; w++) {
      const wallet = wallets[w]!
      const rand = stream(seed, 0x7a, Math.floor(start / HOUR), w)
      let heat = 1
      if (wallet.habit.macro && h.reaction.length > 0) heat *= 4
      else if (wallet.habit.macro && h.pre.length > 0) heat *= 1.8
      else if (h.reaction.length > 0) heat *= 1.6
      const n = poisson(rand, (wallet.habit.tradesPerDay / 24) * diurnal * heat)
      for (let k = 0; k < n; k++) {
        const r = trade(h, w, wallet, k, rand)
        if (r !== null) out.push(r)
      }
    }
    return out.sort((a, b) => a.ts.getTime() - b.ts.getTime() || a.txHash.localeCompare(b.txHash))
  }

  /** The hours of [from, to) one at a time (records before `from` or at/after `to` are left out). */
  function* hours(from: number, to: number): Generator<Array<WhaleRecord>> {
    for (let start = Math.floor(from / HOUR) * HOUR; start < to; start += HOUR) {
      const records = hour(start)
      yield start >= from && start + HOUR <= to ? records : records.filter((r) => r.ts.getTime() >= from && r.ts.getTime() < to)
    }
  }

  return { hour, hours, bySymbol } as const
}

export type History = ReturnType<typeof makeHistory>
