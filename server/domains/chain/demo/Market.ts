/**
 * The demo market: an ETH/USD path and every traded token's USD price as pure functions of (seed, time), and each
 * token's regime — the story its whales are in at that moment. DEMO DATA, not market data.
 *
 * ETH/USD: $3,000 × exp(fractal noise over 45 days … 1 hour) plus a shock at each macro event (its sign and size
 * fixed by the seed: a surprise), fading over days. Token prices: their base level × ETH's move to the power of the
 * token's beta × the token's own noise × its regime level. Liquid-staking tokens track ETH at a fixed ratio and
 * stablecoins are $1.
 *
 * Regimes: each token's time is cut into segments of 9–19 days (its own length and offset). A segment is a
 * `range`, an `accumulation` (whales buy, price rises), a `distribution` (whales sell, price falls), a `pump`
 * (whales accumulate quietly, the price runs up, the whales exit into it, the price falls back: above the entry or
 * below it — picks end both ways) or a `bust` (whales accumulate, then the price breaks down and they unwind).
 * The level a segment starts from is the sum of the last five segments' moves, so prices wander but stay bounded.
 */
import type { TokenInfo } from "../Types"
import { eventsBetween, type MacroEvent } from "./Calendar"
import { fractalNoise, hashString, mix, smoothstep, unit } from "./Random"

export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
export const DAY = 86_400_000
export const HOUR = 3_600_000
export const ETH_BASE = 3_000

/** Rough USD levels of the demo's tokens (demo settings, not facts). Tokens not listed are not traded. */
export const DEMO_PRICE: Readonly<Record<string, number>> = {
  WBTC: 65_000, cbBTC: 65_000, UNI: 8, LINK: 15, AAVE: 100, MKR: 2_500, CRV: 0.4, COMP: 50, LDO: 2, SNX: 2.5,
  YFI: 6_000, "1INCH": 0.35, ENS: 20, RPL: 12, PENDLE: 4, GRT: 0.2, APE: 1.2, IMX: 1.5, BLUR: 0.25, ARB: 0.8,
  RNDR: 6, FET: 1.3, ENA: 0.5, ONDO: 1, WLD: 2, SHIB: 0.00002, PEPE: 0.00001, FLOKI: 0.00015, Mog: 0.0000015
}
/** Liquid-staking tokens: a fixed multiple of ETH. */
export const ETH_MULTIPLE: Readonly<Record<string, number>> = { stETH: 1, wstETH: 1.17, rETH: 1.1, cbETH: 1.07, weETH: 1.04 }
const MEMES = new Set(["SHIB", "PEPE", "FLOKI", "Mog"])
const BTC = new Set(["WBTC", "cbBTC"])

export type TokenGroup = "eth" | "stable" | "lst" | "btc" | "defi" | "meme"
export type RegimeKind = "range" | "accumulation" | "distribution" | "pump" | "bust"
export type Phase = "steady" | "accumulate" | "run-up" | "exit" | "cool" | "unwind"

export interface Segment {
  readonly token: string
  readonly index: number
  readonly kind: RegimeKind
  readonly start: number
  readonly end: number
  /** Log-price move of the segment's own story (end level minus start level, before older moves fade). */
  readonly delta: number
  /** Pumps: the log-price peak above the start level. */
  readonly peak: number
}

export interface Regime {
  readonly segment: Segment
  readonly phase: Phase
  /** Whales' net-buy tendency on the token now, −1 (all sell) … 1 (all buy). */
  readonly bias: number
  /** Multiplier of the whales' activity on the token now. */
  readonly heat: number
}

export interface Market {
  readonly seed: number
  readonly tokens: ReadonlyArray<TokenInfo>
  readonly groupOf: (token: TokenInfo) => TokenGroup
  readonly ethUsd: (ms: number) => number
  readonly usd: (token: TokenInfo, ms: number) => number
  /** The token's regime at `ms`; LSTs, WETH and stablecoins are always in a steady range. */
  readonly regime: (token: TokenInfo, ms: number) => Regime
  readonly segmentAt: (token: TokenInfo, ms: number) => Segment
  readonly events: ReadonlyArray<MacroEvent>
  /** The event's surprise, −1 … 1 (its sign is the direction of ETH's reaction). */
  readonly surprise: (event: MacroEvent) => number
}

/** Pump phases as fractions of the segment. */
export const PUMP = { runUp: 0.3, peak: 0.45, exited: 0.75 } as const
export const BUST = { breaks: 0.4, bottom: 0.7 } as const
const MEMORY = 5

const kindWeights = (group: TokenGroup): ReadonlyArray<readonly [RegimeKind, number]> =>
  group === "meme"
    ? [["pump", 0.34], ["bust", 0.16], ["accumulation", 0.15], ["distribution", 0.15], ["range", 0.2]]
    : group === "btc"
      ? [["accumulation", 0.35], ["distribution", 0.35], ["range", 0.3]]
      : [["pump", 0.2], ["bust", 0.1], ["accumulation", 0.25], ["distribution", 0.22], ["range", 0.23]]

/** The demo market over the traded tokens of `tokens` (see the header). */
export const makeMarket = (seed: number, tokens: Iterable<TokenInfo>, events: ReadonlyArray<MacroEvent>): Market => {
  const traded = [...tokens].filter((t) =>
    !t.blacklisted && (t.address === WETH || t.stable || DEMO_PRICE[t.symbol] !== undefined || ETH_MULTIPLE[t.symbol] !== undefined))
  const groupOf = (t: TokenInfo): TokenGroup =>
    t.address === WETH ? "eth" : t.stable ? "stable" : ETH_MULTIPLE[t.symbol] !== undefined ? "lst"
      : BTC.has(t.symbol) ? "btc" : MEMES.has(t.symbol) ? "meme" : "defi"
  const sorted = [...events].sort((a, b) => a.at - b.at)
  const surprise = (e: MacroEvent) => unit(seed, 0x5e, Math.floor(e.at / 60_000)) * 2 - 1

  const ethKey = mix(seed, 0xe7)
  const ethLog = (ms: number) => {
    let x = fractalNoise(ethKey, ms, [[45 * DAY, 0.22], [12 * DAY, 0.1], [3 * DAY, 0.05], [8 * HOUR, 0.02], [HOUR, 0.006]])
    for (const e of eventsBetween(sorted, ms - 20 * DAY, ms + 1)) {
      const after = ms - e.at
      x += 0.012 * e.severity * surprise(e) * (1 - Math.exp(-after / (20 * 60_000))) * Math.exp(-after / (6 * DAY))
    }
    return x
  }
  const ethUsd = (ms: number) => ETH_BASE * Math.exp(ethLog(ms))

  const segments = new Map<string, Segment>()
  const layout = (t: TokenInfo) => {
    const h = hashString(t.address)
    const length = (9 + 10 * unit(seed, h, 1)) * DAY
    return { h, length, offset: unit(seed, h, 2) * length }
  }
  const segment = (t: TokenInfo, index: number): Segment => {
    const cacheKey = `${t.address}:${index}`
    const cached = segments.get(cacheKey)
    if (cached !== undefined) return cached
    const { h, length, offset } = layout(t)
    const group = groupOf(t)
    const r = (n: number) => unit(seed, h, index, n)
    let kind: RegimeKind = "range"
    if (group === "btc" || group === "defi" || group === "meme") {
      let x = r(3)
      for (const [k, w] of kindWeights(group)) {
        kind = k
        if ((x -= w) < 0) break
      }
    }
    const big = group === "meme" ? 1.6 : 1
    const delta = kind === "accumulation" ? 0.12 + 0.23 * r(4)
      : kind === "distribution" ? -(0.12 + 0.23 * r(4))
      : kind === "pump" ? -0.25 + 0.6 * r(4)
      : kind === "bust" ? -(0.2 + 0.25 * r(4))
      : -0.04 + 0.08 * r(4)
    const peak = kind === "pump" ? big * (0.35 + 0.75 * r(5)) : 0
    const start = offset + index * length
    const made = { token: t.address, index, kind, start, end: start + length, delta, peak }
    segments.set(cacheKey, made)
    return made
  }
  const segmentAt = (t: TokenInfo, ms: number) => {
    const { length, offset } = layout(t)
    return segment(t, Math.floor((ms - offset) / length))
  }

  /** The segment's own log-price path from its start level, u in [0, 1]. */
  const shape = (s: Segment, u: number) => {
    switch (s.kind) {
      case "pump": {
        const early = 0.04
        if (u < PUMP.runUp) return early * (u / PUMP.runUp)
        if (u < PUMP.peak) return early + (s.peak - early) * smoothstep((u - PUMP.runUp) / (PUMP.peak - PUMP.runUp))
        if (u < PUMP.exited) return s.peak + (s.delta - s.peak) * smoothstep((u - PUMP.peak) / (PUMP.exited - PUMP.peak))
        return s.delta
      }
      case "bust": {
        const early = 0.06
        if (u < BUST.breaks) return early * smoothstep(u / BUST.breaks)
        return early + (s.delta - early) * smoothstep((u - BUST.breaks) / (BUST.bottom - BUST.breaks))
      }
      case "range":
        return s.delta * u
      default:
        return s.delta * smoothstep(u)
    }
  }
  const regimeLog = (t: TokenInfo, ms: number) => {
    const s = segmentAt(t, ms)
    let level = 0
    for (let j = 1; j <= MEMORY; j++) level += segment(t, s.index - j).delta
    const u = (ms - s.start) / (s.end - s.start)
    return level + shape(s, u) - segment(t, s.index - MEMORY).delta * smoothstep(u)
  }

  const beta = (t: TokenInfo) => (BTC.has(t.symbol) ? 0.6 : MEMES.has(t.symbol) ? 1.5 : 1.1)
  const usd = (t: TokenInfo, ms: number) => {
    const group = groupOf(t)
    if (group === "stable") return 1
    if (group === "eth") return ethUsd(ms)
    if (group === "lst") return ethUsd(ms) * ETH_MULTIPLE[t.symbol]!
    const own = fractalNoise(mix(seed, hashString(t.address), 7), ms, [[6 * DAY, 0.06], [DAY, 0.025], [2 * HOUR, 0.01]])
    return DEMO_PRICE[t.symbol]! * Math.exp(beta(t) * ethLog(ms) + own + regimeLog(t, ms))
  }

  const regime = (t: TokenInfo, ms: number): Regime => {
    const group = groupOf(t)
    const s = segmentAt(t, ms)
    if (group === "stable" || group === "eth" || group === "lst") return { segment: s, phase: "steady", bias: 0, heat: 1 }
    const u = (ms - s.start) / (s.end - s.start)
    switch (s.kind) {
      case "accumulation": return { segment: s, phase: "accumulate", bias: 0.4, heat: 1.3 }
      case "distribution": return { segment: s, phase: "unwind", bias: -0.4, heat: 1.3 }
      case "range": return { segment: s, phase: "steady", bias: 0, heat: 1 }
      case "pump":
        if (u < PUMP.runUp) return { segment: s, phase: "accumulate", bias: 0.7, heat: 1.8 }
        if (u < PUMP.peak) return { segment: s, phase: "run-up", bias: 0.3, heat: 3 }
        if (u < PUMP.exited) return { segment: s, phase: "exit", bias: -0.7, heat: 2.5 }
        return { segment: s, phase: "cool", bias: -0.1, heat: 1 }
      case "bust":
        if (u < BUST.breaks) return { segment: s, phase: "accumulate", bias: 0.6, heat: 1.6 }
        if (u < BUST.bottom) return { segment: s, phase: "unwind", bias: -0.6, heat: 2 }
        return { segment: s, phase: "cool", bias: 0, heat: 1 }
    }
  }

  return { seed, tokens: traded, groupOf, ethUsd, usd, regime, segmentAt, events: sorted, surprise }
}
