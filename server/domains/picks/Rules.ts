import { cents } from "../../../schema/numbers"
/**
 * The picks rules, pure (no I/O, no clock): the flagging rule over a sliding window, the point-in-time conviction
 * score, the 7-day-close grade and the exit of a flagging whale. The service (Picks.ts) and `npm run picks --
 * rebuild` both call these, so the live grader and a rebuild agree.
 *
 * Flagging rule: a token becomes a pick at the record that makes at least `minWhales` distinct tracked wallets net
 * DEX buyers of it within the window `(t − window, t]` (net buyer: bought more token units than it sold on DEXes in
 * the window), when the record is itself a DEX buy, the token is eligible (not a stablecoin, not an ETH derivative,
 * not blacklisted) and the token has no open (PENDING) pick. Entry price: the price of that record, else the last
 * priced record of the token in the window.
 */

export const HOUR_MS = 3_600_000
export const DAY_MS = 24 * HOUR_MS
/** The grading horizon: 7 × 24 h after the flag. */
export const HORIZON_DAYS = 7
export const HORIZON_MS = HORIZON_DAYS * DAY_MS
/** Exits are kept for 30 days after the flag. */
export const EXIT_DAYS = 30
export const EXIT_MS = EXIT_DAYS * DAY_MS

export interface RuleSettings {
  /** Distinct net buyers needed (PICKS_MIN_WHALES, default 3). */
  readonly minWhales: number
  /** Sliding window length (PICKS_WINDOW_HOURS, default 24). */
  readonly windowMs: number
  /** The close must be a price seen at most this long before the 7-day mark (PICKS_CLOSE_MAX_AGE_HOURS, 48). */
  readonly closeMaxAgeMs: number
}

export const defaultRules: RuleSettings = { minWhales: 3, windowMs: 24 * HOUR_MS, closeMaxAgeMs: 48 * HOUR_MS }

/** A DEX record of the token in the window (the flagging inputs). */
export interface WindowTrade {
  readonly wallet: string
  readonly side: "buy" | "sell"
  /** Token units. */
  readonly amount: number
  readonly usd: number | null
  readonly price: number | null
  /** Epoch ms. */
  readonly ts: number
}

export interface NetBuyer {
  readonly wallet: string
  /** Bought − sold, token units (> 0). */
  readonly netAmount: number
  /** Bought − sold, USD (unpriced records count $0). */
  readonly netUsd: number
}

/** Wallets that are net DEX buyers over the trades in `(at − windowMs, at]`, sorted by address. */
export const netBuyers = (trades: ReadonlyArray<WindowTrade>, at: number, windowMs: number): ReadonlyArray<NetBuyer> => {
  const by = new Map<string, { amount: number; usd: number }>()
  for (const t of trades) {
    if (t.ts <= at - windowMs || t.ts > at) continue
    const sign = t.side === "buy" ? 1 : -1
    const cur = by.get(t.wallet) ?? { amount: 0, usd: 0 }
    cur.amount += sign * t.amount
    cur.usd += sign * (t.usd ?? 0)
    by.set(t.wallet, cur)
  }
  return [...by.entries()]
    .filter(([, v]) => v.amount > 0)
    .map(([wallet, v]) => ({ wallet, netAmount: v.amount, netUsd: v.usd }))
    .sort((a, b) => (a.wallet < b.wallet ? -1 : a.wallet > b.wallet ? 1 : 0))
}

export interface FlagDecision {
  readonly buyers: ReadonlyArray<NetBuyer>
  readonly entryPrice: number | null
}

/**
 * Whether the arrival of `trigger` (a DEX buy at `trigger.ts`) flags the token, given every DEX trade of the token
 * in the window (the trigger included) and whether the token already has an open pick. Null: no pick.
 */
export const decideFlag = (
  trigger: WindowTrade,
  trades: ReadonlyArray<WindowTrade>,
  openPick: boolean,
  rules: RuleSettings
): FlagDecision | null => {
  if (openPick || trigger.side !== "buy") return null
  const buyers = netBuyers(trades, trigger.ts, rules.windowMs)
  if (buyers.length < rules.minWhales) return null
  // The trigger must be one of the buyers that make up the count (a buy that leaves its wallet a net seller flags nothing new).
  if (!buyers.some((b) => b.wallet === trigger.wallet)) return null
  let entryPrice = trigger.price
  if (entryPrice === null) {
    let best: WindowTrade | null = null
    for (const t of trades) {
      if (t.price === null || t.ts > trigger.ts || t.ts <= trigger.ts - rules.windowMs) continue
      if (best === null || t.ts >= best.ts) best = t
    }
    entryPrice = best?.price ?? null
  }
  return { buyers, entryPrice: entryPrice !== null && entryPrice > 0 ? entryPrice : null }
}

// ---------------------------------------------------------------------------------------------------------------
// Conviction (point-in-time)

/** A pick already graded, as conviction sees it: who flagged it, when its grade became known, how it closed. */
export interface GradedOutcome {
  readonly flaggers: ReadonlyArray<string>
  /** Epoch ms when the grade was known: flagged_at + 7 × 24 h. */
  readonly gradedAt: number
  readonly closeReturn: number
}

export interface ConvictionInputs {
  readonly whales: number
  readonly usd: number
  /** 0..1: how evenly the flaggers' USD is spread (1 = equal, 0 = one wallet holds it all). */
  readonly breadth: number
  /** Shrunk hit rate of the flaggers' earlier graded picks: (hits + 1) / (n + 2). */
  readonly hitRate: number
  /** Graded picks of these flaggers known at the flag (n of the hit rate). */
  readonly history: number
  readonly score: number
}

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x)

/** 1 − normalised Herfindahl index of the USD shares; one buyer (or no USD) → 0 for one, 1 for many equal. */
export const breadthOf = (usd: ReadonlyArray<number>): number => {
  const positive = usd.map((u) => Math.max(0, u))
  const total = positive.reduce((a, b) => a + b, 0)
  const n = positive.length
  if (n <= 1) return 0
  if (total <= 0) return 1
  const hhi = positive.reduce((a, u) => a + (u / total) ** 2, 0)
  return clamp01((1 / hhi - 1) / (n - 1))
}

/**
 * Conviction 0–100 = 100 × (0.30 count + 0.25 size + 0.15 breadth + 0.30 track record), one decimal:
 *  count   = min(1, whales / (2 × minWhales));
 *  size    = clamp(log10(net buy USD / 10,000) / 3): $10k → 0, $10M → 1;
 *  breadth = see `breadthOf`;
 *  record  = (hits + 1) / (n + 2) over the picks graded before `at` that any of these wallets flagged (hit: 7-day
 *            close > 0) — only grades known at the flag count, so a later grade never changes this score.
 */
export const conviction = (
  buyers: ReadonlyArray<NetBuyer>,
  history: ReadonlyArray<GradedOutcome>,
  at: number,
  minWhales: number
): ConvictionInputs => {
  const whales = buyers.length
  const usd = buyers.reduce((a, b) => a + Math.max(0, b.netUsd), 0)
  const breadth = breadthOf(buyers.map((b) => b.netUsd))
  const mine = new Set(buyers.map((b) => b.wallet))
  let n = 0
  let hits = 0
  for (const h of history) {
    if (h.gradedAt > at) continue
    if (!h.flaggers.some((w) => mine.has(w))) continue
    n += 1
    if (h.closeReturn > 0) hits += 1
  }
  const hitRate = (hits + 1) / (n + 2)
  const count = clamp01(whales / (2 * minWhales))
  const size = usd > 0 ? clamp01(Math.log10(usd / 10_000) / 3) : 0
  const score = Math.round(1000 * (0.3 * count + 0.25 * size + 0.15 * breadth + 0.3 * hitRate)) / 10
  return { whales, usd: cents(usd), breadth: round4(breadth), hitRate: round4(hitRate), history: n, score }
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000

// ---------------------------------------------------------------------------------------------------------------
// Grading

export interface PricePoint {
  readonly ts: number
  readonly price: number
}

export interface Marks {
  readonly peak: number | null
  readonly trough: number | null
  /** Close at flag + d × 24 h, d = 1..7: the last price after the flag at or before that time (null: none yet). */
  readonly dayCloses: ReadonlyArray<number | null>
  /** The last price after the flag up to the horizon, with its time. */
  readonly last: PricePoint | null
}

/** Highest, lowest and daily closes of the prices in `(flaggedAt, min(now, flaggedAt + 7 d)]`. */
export const marks = (flaggedAt: number, points: ReadonlyArray<PricePoint>, now: number): Marks => {
  const end = Math.min(now, flaggedAt + HORIZON_MS)
  const sorted = points.filter((p) => p.ts > flaggedAt && p.ts <= end && p.price > 0).sort((a, b) => a.ts - b.ts)
  let peak: number | null = null
  let trough: number | null = null
  for (const p of sorted) {
    if (peak === null || p.price > peak) peak = p.price
    if (trough === null || p.price < trough) trough = p.price
  }
  const dayCloses: Array<number | null> = []
  let i = 0
  let last: PricePoint | null = null
  for (let d = 1; d <= HORIZON_DAYS; d++) {
    const mark = flaggedAt + d * DAY_MS
    while (i < sorted.length && sorted[i]!.ts <= mark) last = sorted[i++]!
    dayCloses.push(mark <= end ? (last?.price ?? null) : null)
  }
  return { peak, trough, dayCloses, last: sorted.length > 0 ? sorted[sorted.length - 1]! : null }
}

export type Grade =
  | {
      readonly status: "GRADED"
      readonly closePrice: number
      readonly closeReturn: number
      readonly peakReturn: number
      readonly maxAdverse: number
      readonly marks: Marks
      readonly exitedBeforeClose: boolean
    }
  | { readonly status: "UNPRICED"; readonly reason: string; readonly marks: Marks; readonly exitedBeforeClose: boolean }

/** The time a pick flagged at `flaggedAt` is graded: exactly 7 × 24 h later. */
export const dueAt = (flaggedAt: number) => flaggedAt + HORIZON_MS

/**
 * The 7-day-close grade, or null while the pick is not due (`now < flaggedAt + 7 × 24 h`). Close: the last price in
 * `(flag, flag + 7 d]`, which must be at most `closeMaxAgeMs` older than the 7-day mark; highest reading: the highest
 * price of those 7 days. UNPRICED (never guessed) without an entry price or without such a close.
 */
export const grade = (
  pick: { readonly flaggedAt: number; readonly entryPrice: number | null },
  points: ReadonlyArray<PricePoint>,
  exitTimes: ReadonlyArray<number>,
  now: number,
  rules: RuleSettings
): Grade | null => {
  const due = dueAt(pick.flaggedAt)
  if (now < due) return null
  const m = marks(pick.flaggedAt, points, due)
  const exitedBeforeClose = exitTimes.some((t) => t > pick.flaggedAt && t <= due)
  if (pick.entryPrice === null || pick.entryPrice <= 0) return { status: "UNPRICED", reason: "no entry price", marks: m, exitedBeforeClose }
  if (m.last === null) return { status: "UNPRICED", reason: "no price after the flag", marks: m, exitedBeforeClose }
  if (due - m.last.ts > rules.closeMaxAgeMs) return { status: "UNPRICED", reason: "no recent price at the 7-day mark", marks: m, exitedBeforeClose }
  const entry = pick.entryPrice
  return {
    status: "GRADED",
    closePrice: m.last.price,
    closeReturn: m.last.price / entry - 1,
    peakReturn: m.peak! / entry - 1,
    maxAdverse: Math.min(0, m.trough! / entry - 1),
    marks: m,
    exitedBeforeClose
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Exits

export type ExitRoute = "dex_sell" | "exchange_deposit"

export interface Exit {
  readonly wallet: string
  readonly ts: number
  readonly dayOffset: number
  readonly hours: number
  readonly price: number | null
  readonly move: number | null
  readonly route: ExitRoute
}

/**
 * A flagging whale's exit: its DEX sell or exchange deposit of the token after the flag and within 30 days. Only the
 * first counts (the caller keeps the earliest). The price is the record's own, else the last known price of the token
 * (`lastPrice`), else null (the exit stays dated, its move unknown).
 */
export const exitOf = (
  pick: { readonly flaggedAt: number; readonly entryPrice: number | null; readonly flaggers: ReadonlyArray<string> },
  record: { readonly wallet: string; readonly category: string; readonly ts: number; readonly price: number | null },
  lastPrice: number | null
): Exit | null => {
  if (record.category !== "dex_sell" && record.category !== "exchange_deposit") return null
  if (!pick.flaggers.includes(record.wallet)) return null
  if (record.ts <= pick.flaggedAt || record.ts > pick.flaggedAt + EXIT_MS) return null
  const elapsed = record.ts - pick.flaggedAt
  const price = record.price !== null && record.price > 0 ? record.price : lastPrice
  return {
    wallet: record.wallet,
    ts: record.ts,
    dayOffset: Math.min(EXIT_DAYS, Math.floor(elapsed / DAY_MS)),
    hours: Math.round((elapsed / HOUR_MS) * 100) / 100,
    price,
    move: price !== null && pick.entryPrice !== null ? price / pick.entryPrice - 1 : null,
    route: record.category
  }
}
