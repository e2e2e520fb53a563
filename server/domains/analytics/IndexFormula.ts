/**
 * The Whale Sentiment Index: a 0–100 score of one UTC day's whale buying versus selling (50 is neutral). It is the
 * weighted mean of four component scores, each 0–100 with 50 neutral (and exactly 50 when it has no input):
 *
 *   volume balance      0.35   100 × buy / (buy + sell), USD of DEX buys and sells of the day
 *   breadth             0.25   100 × buyers / (buyers + sellers): wallets whose DEX buys exceeded their sells
 *                              (USD, all tokens together) versus wallets whose sells exceeded their buys
 *   exchange flow       0.20   100 × withdrawn / (withdrawn + deposited), USD moved from / to exchanges,
 *                              stablecoins excluded (coins leaving exchanges are being held, not sold)
 *   momentum            0.20   50 + 50 × (net − avgNet7) / avgGross7, clamped to 0–100, where net = buy − sell of
 *                              the day and avgNet7 / avgGross7 are the means of (buy − sell) and (buy + sell) over
 *                              the 7 days before it (days without records count as 0)
 *
 * score = Σ weight × component score, rounded to one decimal. Labels: below 20 "Extreme selling", below 40
 * "Selling", 40 to 60 "Neutral", up to 80 "Buying", above 80 "Extreme buying". Today's value is live (the day so
 * far); past days are the closes stored at each day's end.
 */
import type { WhaleIndex } from "../../../schema/http/analytics"

/** One UTC day's inputs, from the daily roll-up. */
export interface DayFigures {
  readonly day: string
  readonly buyUsd: number
  readonly sellUsd: number
  readonly withdrawUsd: number
  readonly depositUsd: number
  readonly buyers: number
  readonly sellers: number
}

export type IndexComponent = WhaleIndex["components"][number]
export type IndexLabel = WhaleIndex["label"]

export const WEIGHTS = { volume_balance: 0.35, breadth: 0.25, exchange_flow: 0.2, momentum: 0.2 } as const

const round1 = (x: number) => Math.round(x * 10) / 10
const round4 = (x: number) => Math.round(x * 10_000) / 10_000
const clamp = (x: number) => Math.min(100, Math.max(0, x))

/** share ∈ [0, 1] of `a` in `a + b`, or null without input. */
const share = (a: number, b: number) => (a + b > 0 ? a / (a + b) : null)

export const labelOf = (score: number): IndexLabel =>
  score < 20 ? "Extreme selling" : score < 40 ? "Selling" : score <= 60 ? "Neutral" : score <= 80 ? "Buying" : "Extreme buying"

export const EMPTY_DAY = (day: string): DayFigures => ({ day, buyUsd: 0, sellUsd: 0, withdrawUsd: 0, depositUsd: 0, buyers: 0, sellers: 0 })

/**
 * The index of `today` given the 7 days before it (`previous`, any order; missing days count as empty).
 */
export const computeIndex = (today: DayFigures, previous: ReadonlyArray<DayFigures>) => {
  const volume = share(today.buyUsd, today.sellUsd)
  const breadth = share(today.buyers, today.sellers)
  const exchange = share(today.withdrawUsd, today.depositUsd)
  const avgNet = previous.reduce((s, d) => s + d.buyUsd - d.sellUsd, 0) / 7
  const avgGross = previous.reduce((s, d) => s + d.buyUsd + d.sellUsd, 0) / 7
  const momentum = avgGross > 0 ? (today.buyUsd - today.sellUsd - avgNet) / avgGross : null

  const parts: Array<{ key: keyof typeof WEIGHTS; name: string; raw: number | null; score: number; description: string }> = [
    {
      key: "volume_balance", name: "Volume balance", raw: volume, score: volume === null ? 50 : 100 * volume,
      description: "Share of whale DEX buy volume (USD) in buy plus sell volume today"
    },
    {
      key: "breadth", name: "Breadth", raw: breadth, score: breadth === null ? 50 : 100 * breadth,
      description: "Share of net-buying wallets among wallets that net bought or net sold on DEXes today"
    },
    {
      key: "exchange_flow", name: "Exchange flow", raw: exchange, score: exchange === null ? 50 : 100 * exchange,
      description: "Share of exchange withdrawals (USD) in withdrawals plus deposits today, stablecoins excluded"
    },
    {
      key: "momentum", name: "Momentum", raw: momentum, score: momentum === null ? 50 : clamp(50 + 50 * momentum),
      description: "Today's net DEX flow against the 7-day average net flow, relative to the 7-day average volume"
    }
  ]
  const score = round1(parts.reduce((s, p) => s + WEIGHTS[p.key] * p.score, 0))
  const components: Array<IndexComponent> = parts.map((p) => ({
    name: p.name,
    score: round1(p.score),
    weight: WEIGHTS[p.key],
    raw: p.raw === null ? null : round4(p.raw),
    description: p.description
  }))
  return { date: today.day, score, label: labelOf(score), components }
}
