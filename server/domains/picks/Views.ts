/**
 * The picks read views, pure: every endpoint's body computed from the picks and their exits held in memory (the
 * service loads them once per PICKS_CACHE_SECONDS). VOID picks (undone by a reorg) are in no view.
 */
import type { Bands, Behaviour, Distributions, PickRow, Summary, Tokens, Wallets } from "../../../schema/http/picks"
import type { BacktestSample } from "../../../schema/http/backtest"
import { DAY_MS, HORIZON_DAYS } from "./Rules"
import { histogram, mean, median, rate, RETURN_EDGES } from "./Stats"

export interface PickRec {
  readonly id: number
  readonly token: string
  readonly symbol: string
  readonly flaggedAt: number
  readonly status: "PENDING" | "GRADED" | "UNPRICED" | "VOID"
  readonly whales: number
  readonly flaggers: ReadonlyArray<string>
  readonly conviction: number
  readonly entryPrice: number | null
  readonly peakReturn: number | null
  readonly closeReturn: number | null
  readonly maxAdverse: number | null
  readonly exitedBeforeClose: boolean | null
  readonly dayCloses: ReadonlyArray<number | null> | null
  readonly gradedAt: number | null
  readonly demo?: boolean
}

export interface ExitRec {
  readonly pickId: number
  readonly wallet: string
  readonly ts: number
  readonly dayOffset: number
  readonly hours: number
  readonly price: number | null
  readonly move: number | null
  readonly route: "dex_sell" | "exchange_deposit"
}

export interface ViewSettings {
  readonly minWhales: number
  readonly windowHours: number
  readonly minN: number
}

export const truncateAddress = (a: string) => (a.length > 12 ? `${a.slice(0, 6)}…${a.slice(-4)}` : a)
const iso = (ms: number) => new Date(ms).toISOString()
const r6 = (x: number | null) => (x === null ? null : Math.round(x * 1_000_000) / 1_000_000)

export const pickRow = (p: PickRec, exits: number): PickRow => ({
  id: p.id, symbol: p.symbol, token: p.token, flagged_at: iso(p.flaggedAt), status: p.status, whales: p.whales,
  conviction: p.conviction, entry_price: p.entryPrice, peak_return: r6(p.peakReturn),
  close_return: p.status === "GRADED" ? r6(p.closeReturn) : null, max_adverse: r6(p.maxAdverse),
  exited_before_close: p.exitedBeforeClose, exits, graded_at: p.gradedAt === null ? null : iso(p.gradedAt)
})

const graded = (picks: ReadonlyArray<PickRec>) => picks.filter((p) => p.status === "GRADED" && p.closeReturn !== null && p.peakReturn !== null)

export const summary = (picks: ReadonlyArray<PickRec>, exits: ReadonlyArray<ExitRec>, s: ViewSettings, demo: boolean): Summary => {
  const live = picks.filter((p) => p.status !== "VOID")
  const g = graded(live)
  const n = g.length
  const count = (f: (p: PickRec) => boolean) => g.filter(f).length
  const runners = g.filter((p) => p.peakReturn! >= 0.1)
  const exited = g.filter((p) => p.exitedBeforeClose === true)
  const held = g.filter((p) => p.exitedBeforeClose !== true)
  const firstExit = new Map<number, number>()
  for (const e of exits) firstExit.set(e.pickId, Math.min(firstExit.get(e.pickId) ?? Infinity, e.hours))
  const gradedIds = new Set(g.map((p) => p.id))
  const times = live.map((p) => p.flaggedAt)
  return {
    rule: { min_whales: s.minWhales, window_hours: s.windowHours, horizon_days: HORIZON_DAYS, min_n: s.minN },
    counts: {
      total: live.length,
      pending: live.filter((p) => p.status === "PENDING").length,
      graded: n,
      unpriced: live.filter((p) => p.status === "UNPRICED").length,
      void: picks.length - live.length,
      tokens: new Set(live.map((p) => p.token)).size,
      first_flagged_at: times.length ? iso(Math.min(...times)) : null,
      last_flagged_at: times.length ? iso(Math.max(...times)) : null
    },
    runners: {
      gte_10: rate(count((p) => p.peakReturn! >= 0.1), n, s.minN),
      gte_25: rate(count((p) => p.peakReturn! >= 0.25), n, s.minN),
      gte_50: rate(count((p) => p.peakReturn! >= 0.5), n, s.minN),
      gte_100: rate(count((p) => p.peakReturn! >= 1), n, s.minN)
    },
    close: {
      positive: rate(count((p) => p.closeReturn! > 0), n, s.minN),
      median: median(g.map((p) => p.closeReturn!), s.minN),
      mean: n >= s.minN ? mean(g.map((p) => p.closeReturn!)) : null
    },
    peak_vs_close: {
      median_peak: median(g.map((p) => p.peakReturn!), s.minN),
      median_close: median(g.map((p) => p.closeReturn!), s.minN),
      median_giveback: median(g.map((p) => p.peakReturn! - p.closeReturn!), s.minN),
      runners_closed_up: rate(runners.filter((p) => p.closeReturn! > 0).length, runners.length, s.minN)
    },
    follow_through: {
      exited_before_close: rate(exited.length, n, s.minN),
      closed_up_when_exited: rate(exited.filter((p) => p.closeReturn! > 0).length, exited.length, s.minN),
      closed_up_when_held: rate(held.filter((p) => p.closeReturn! > 0).length, held.length, s.minN),
      median_first_exit_hours: median([...firstExit.entries()].filter(([id]) => gradedIds.has(id)).map(([, h]) => h), s.minN)
    },
    demo
  }
}

const monthOf = (ms: number) => iso(ms).slice(0, 7)

export const distributions = (picks: ReadonlyArray<PickRec>, s: ViewSettings): Distributions => {
  const g = graded(picks)
  const horizon = Array.from({ length: HORIZON_DAYS }, (_, i) => ({
    day: i + 1,
    median: median(g.flatMap((p) => {
      const c = p.dayCloses?.[i]
      return c !== null && c !== undefined && p.entryPrice ? [c / p.entryPrice - 1] : []
    }), s.minN)
  }))
  const months = new Map<string, Array<PickRec>>()
  for (const p of picks) if (p.status !== "VOID") months.set(monthOf(p.flaggedAt), [...(months.get(monthOf(p.flaggedAt)) ?? []), p])
  const monthly = [...months.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([month, ps]) => {
    const mg = graded(ps)
    return {
      month, picks: ps.length, graded: mg.length,
      positive: rate(mg.filter((p) => p.closeReturn! > 0).length, mg.length, s.minN),
      median_close: median(mg.map((p) => p.closeReturn!), s.minN),
      median_peak: median(mg.map((p) => p.peakReturn!), s.minN)
    }
  })
  return { peak: [...histogram(g.map((p) => p.peakReturn!), RETURN_EDGES)], close: [...histogram(g.map((p) => p.closeReturn!), RETURN_EDGES)], horizon, monthly }
}

const outcome = (band: string, ps: ReadonlyArray<PickRec>, minN: number) => {
  const g = graded(ps)
  return {
    band, picks: ps.length, positive: rate(g.filter((p) => p.closeReturn! > 0).length, g.length, minN),
    median_close: median(g.map((p) => p.closeReturn!), minN), median_peak: median(g.map((p) => p.peakReturn!), minN)
  }
}

export const bands = (picks: ReadonlyArray<PickRec>, s: ViewSettings): Bands => {
  const live = picks.filter((p) => p.status !== "VOID")
  const m = s.minWhales
  const whaleBands: Array<[string, (w: number) => boolean]> = [
    [`${m}`, (w) => w <= m], [`${m + 1}`, (w) => w === m + 1], [`${m + 2}–${m + 4}`, (w) => w >= m + 2 && w <= m + 4], [`${m + 5}+`, (w) => w >= m + 5]
  ]
  const convictionBands: Array<[string, number, number]> = [["0–20", 0, 20], ["20–40", 20, 40], ["40–60", 40, 60], ["60–80", 60, 80], ["80–100", 80, 100.0001]]
  return {
    by_whales: whaleBands.map(([band, f]) => outcome(band, live.filter((p) => f(p.whales)), s.minN)),
    by_conviction: convictionBands.map(([band, lo, hi]) => outcome(band, live.filter((p) => p.conviction >= lo && p.conviction < hi), s.minN))
  }
}

export const tokens = (picks: ReadonlyArray<PickRec>, limit: number, minN: number): Tokens => {
  const by = new Map<string, Array<PickRec>>()
  for (const p of picks) if (p.status !== "VOID") by.set(p.token, [...(by.get(p.token) ?? []), p])
  const rows = [...by.values()].map((ps) => {
    const g = graded(ps)
    const last = ps.reduce((a, p) => (p.flaggedAt > a.flaggedAt ? p : a))
    return {
      symbol: last.symbol, token: last.token, picks: ps.length, graded: g.length, pending: ps.filter((p) => p.status === "PENDING").length,
      last_flagged_at: iso(last.flaggedAt),
      median_close: g.length ? median(g.map((p) => p.closeReturn!), 1).value : null,
      best_peak: g.length ? r6(Math.max(...g.map((p) => p.peakReturn!))) : null,
      positive: rate(g.filter((p) => p.closeReturn! > 0).length, g.length, minN)
    }
  })
  rows.sort((a, b) => b.picks - a.picks || (a.last_flagged_at < b.last_flagged_at ? 1 : -1) || (a.symbol < b.symbol ? -1 : 1))
  return { tokens: rows.slice(0, limit) }
}

export const behaviour = (picks: ReadonlyArray<PickRec>, exits: ReadonlyArray<ExitRec>, minN: number): Behaviour => {
  const live = new Set(picks.filter((p) => p.status !== "VOID").map((p) => p.id))
  const xs = exits.filter((e) => live.has(e.pickId))
  const byDay = new Map<number, number>()
  for (const e of xs) byDay.set(e.dayOffset, (byDay.get(e.dayOffset) ?? 0) + 1)
  const g = graded(picks)
  return {
    exits: xs.length,
    picks_with_exits: new Set(xs.map((e) => e.pickId)).size,
    hold_hours: median(xs.map((e) => e.hours), minN),
    exit_move: median(xs.flatMap((e) => (e.move === null ? [] : [e.move])), minN),
    routes: { dex_sell: xs.filter((e) => e.route === "dex_sell").length, exchange_deposit: xs.filter((e) => e.route === "exchange_deposit").length },
    by_day: [...byDay.entries()].sort(([a], [b]) => a - b).map(([day_offset, n]) => ({ day_offset, exits: n })),
    exited_within_7d: rate(g.filter((p) => p.exitedBeforeClose === true).length, g.length, minN)
  }
}

export const WALLETS_NOTE = "Currently tracked wallets that exited picks after they were flagged: what each wallet did afterwards, past tense. A pick is flagged by the combined buying of several wallets; nothing here says which wallet, if any, selected it."

export const wallets = (
  picks: ReadonlyArray<PickRec>, exits: ReadonlyArray<ExitRec>, tracked: ReadonlySet<string>,
  order: "picks" | "exits" | "hold" | "move", minPicks: number
): Wallets => {
  const live = new Set(picks.filter((p) => p.status !== "VOID").map((p) => p.id))
  const by = new Map<string, Array<ExitRec>>()
  for (const e of exits) if (live.has(e.pickId) && tracked.has(e.wallet)) by.set(e.wallet, [...(by.get(e.wallet) ?? []), e])
  const rows = [...by.entries()].map(([wallet, xs]) => ({
    address: wallet,
    wallet: truncateAddress(wallet),
    picks: new Set(xs.map((e) => e.pickId)).size,
    median_hold_hours: median(xs.map((e) => e.hours), 1).value,
    median_exit_move: median(xs.flatMap((e) => (e.move === null ? [] : [e.move])), 1).value,
    dex_sells: xs.filter((e) => e.route === "dex_sell").length,
    exchange_deposits: xs.filter((e) => e.route === "exchange_deposit").length
  })).filter((r) => r.picks >= minPicks)
  const key = (r: (typeof rows)[number]) =>
    order === "picks" ? r.picks : order === "exits" ? r.dex_sells + r.exchange_deposits : order === "hold" ? (r.median_hold_hours ?? -Infinity) : (r.median_exit_move ?? -Infinity)
  rows.sort((a, b) => key(b) - key(a) || (a.address < b.address ? -1 : 1))
  return { wallets: rows.map(({ address: _a, ...r }) => r), note: WALLETS_NOTE }
}

/** Graded picks whose highest reading lies within +10 % … +300 %, highest first. */
export const topRunners = (picks: ReadonlyArray<PickRec>, limit: number) =>
  graded(picks).filter((p) => p.peakReturn! >= 0.1 && p.peakReturn! <= 3)
    .sort((a, b) => b.peakReturn! - a.peakReturn! || b.flaggedAt - a.flaggedAt || a.id - b.id).slice(0, limit)

/** Picks with at least `minExits` dated exits, most exits first, at most two per token. */
export const exitTimingIndex = (picks: ReadonlyArray<PickRec>, exitCounts: ReadonlyMap<number, number>, minExits: number) => {
  const perToken = new Map<string, number>()
  const out: Array<PickRec> = []
  const eligible = picks.filter((p) => p.status !== "VOID" && (exitCounts.get(p.id) ?? 0) >= minExits)
    .sort((a, b) => (exitCounts.get(b.id) ?? 0) - (exitCounts.get(a.id) ?? 0) || b.flaggedAt - a.flaggedAt || a.id - b.id)
  for (const p of eligible) {
    const n = perToken.get(p.token) ?? 0
    if (n >= 2) continue
    perToken.set(p.token, n + 1)
    out.push(p)
  }
  return out
}

/**
 * The public backtest sample: graded picks flagged in the 90 days before the last possible grade
 * (`[now − 90 d − 7 d, now − 7 d)`), on the 7-day-close rule; picks flagged by a single address (individual fires)
 * are excluded.
 */
export const sample = (picks: ReadonlyArray<PickRec>, now: number, minN: number, demo: boolean): BacktestSample => {
  const to = now - HORIZON_DAYS * DAY_MS
  const from = to - 90 * DAY_MS
  const inWindow = graded(picks).filter((p) => p.flaggedAt >= from && p.flaggedAt < to)
  const group = inWindow.filter((p) => p.whales >= 2)
  return {
    window_days: 90, rule: "7-day close (close 7 × 24 h after the flag / entry − 1)", from: iso(from), to: iso(to),
    picks: group.length, excluded_individual: inWindow.length - group.length,
    positive: rate(group.filter((p) => p.closeReturn! > 0).length, group.length, minN),
    median_close: median(group.map((p) => p.closeReturn!), minN),
    mean_close: group.length >= minN ? mean(group.map((p) => p.closeReturn!)) : null,
    median_peak: median(group.map((p) => p.peakReturn!), minN),
    runners_gte_25: rate(group.filter((p) => p.peakReturn! >= 0.25).length, group.length, minN),
    demo, generated_at: iso(now)
  }
}
