/**
 * Accumulation / positioning from per token × wallet net flows of the last 7 and 30 UTC days (today included).
 * Net flow = DEX buys + exchange withdrawals − DEX sells − exchange deposits (USD); gross = the four added up.
 *
 *   asset score   50 + 25 × net7/gross7 + 25 × net30/gross30 (a window without flows adds 0), 0–100, 50 neutral
 *   score         the same over the majors (ETH, WBTC, cbBTC) taken together
 *   divergence    50 × (highest − lowest) cohort direction net30/gross30 among cohorts with flows, 0–100
 *
 * What a caller sees depends on its tier (spec §4.5): anon the majors, score, divergence and a 5-row teaser;
 * free 10 rows; pro and above every asset and the size cohorts; alpha and above also the top accumulator wallets.
 */
import type { Positioning } from "../../../schema/http/analytics"
import { TIER_RANK, type Tier } from "../../../schema/tiers"
import type { WalletTokenRow } from "./FlowsRepo"
import { displaySymbol, MAJORS } from "./Tokens"
import { cents } from "../../../schema/numbers"

type Cohort = "mega" | "large" | "mid" | "small"
const COHORTS: ReadonlyArray<Cohort> = ["mega", "large", "mid", "small"]
type Asset = Positioning["assets"][number]
type CohortFlow = NonNullable<Positioning["cohorts"]>[number]

interface Sums { net7: number; gross7: number; net30: number; gross30: number; wallets: Set<string> }
const sums = (): Sums => ({ net7: 0, gross7: 0, net30: 0, gross30: 0, wallets: new Set() })
const add = (s: Sums, r: WalletTokenRow) => {
  s.net7 += r.net7
  s.gross7 += r.gross7
  s.net30 += r.net30
  s.gross30 += r.gross30
  s.wallets.add(r.wallet)
}

const round1 = (x: number) => Math.round(x * 10) / 10
const ratio = (net: number, gross: number) => (gross > 0 ? net / gross : 0)
export const accumulationScore = (s: Pick<Sums, "net7" | "gross7" | "net30" | "gross30">) =>
  round1(Math.min(100, Math.max(0, 50 + 25 * ratio(s.net7, s.gross7) + 25 * ratio(s.net30, s.gross30))))

const cohortFlows = (by: Map<Cohort, Sums>): Array<CohortFlow> =>
  COHORTS.map((cohort) => {
    const s = by.get(cohort) ?? sums()
    return { cohort, net_flow_7d_usd: cents(s.net7), net_flow_30d_usd: cents(s.net30), wallets: s.wallets.size }
  })

const divergenceOf = (by: Map<Cohort, Sums>) => {
  const directions = COHORTS.flatMap((c) => {
    const s = by.get(c)
    return s && s.gross30 > 0 ? [{ cohort: c, d: s.net30 / s.gross30 }] : []
  })
  if (directions.length < 2) return { score: 0, description: "Not enough cohorts with flows to compare" }
  const hi = directions.reduce((a, b) => (b.d > a.d ? b : a))
  const lo = directions.reduce((a, b) => (b.d < a.d ? b : a))
  const score = round1(50 * (hi.d - lo.d))
  const verb = (d: number) => (d > 0.1 ? "accumulating" : d < -0.1 ? "distributing" : "flat")
  const description = score < 20
    ? `Cohorts agree: ${hi.cohort} to ${lo.cohort} wallets are ${verb((hi.d + lo.d) / 2)}`
    : `${hi.cohort} wallets ${verb(hi.d)} while ${lo.cohort} wallets ${verb(lo.d)}`
  return { score, description }
}

/** The full model (everything the alpha tier and above may see). */
export const buildPositioning = (rows: ReadonlyArray<WalletTokenRow>): Positioning => {
  interface TokenSums { symbol: string; all: Sums; cohorts: Map<Cohort, Sums>; wallets: Array<WalletTokenRow> }
  const byToken = new Map<string, TokenSums>()
  const overallCohorts = new Map<Cohort, Sums>()
  for (const r of rows) {
    const t: TokenSums = byToken.get(r.token) ?? { symbol: displaySymbol(r.token, r.symbol), all: sums(), cohorts: new Map(), wallets: [] }
    byToken.set(r.token, t)
    add(t.all, r)
    const cohort = r.cohort ?? "small"
    const c = t.cohorts.get(cohort) ?? sums()
    t.cohorts.set(cohort, c)
    add(c, r)
    const o = overallCohorts.get(cohort) ?? sums()
    overallCohorts.set(cohort, o)
    add(o, r)
    t.wallets.push(r)
  }
  const asset = (token: string): Asset => {
    const t = byToken.get(token)
    const s = t?.all ?? sums()
    return {
      symbol: t?.symbol ?? displaySymbol(token, MAJORS.get(token) ?? "UNKNOWN"),
      token,
      net_flow_7d_usd: cents(s.net7),
      net_flow_30d_usd: cents(s.net30),
      score: accumulationScore(s),
      cohorts: cohortFlows(t?.cohorts ?? new Map()),
      top_accumulators: (t?.wallets ?? [])
        .filter((w) => w.net30 > 0)
        .sort((a, b) => b.net30 - a.net30 || a.wallet.localeCompare(b.wallet))
        .slice(0, 5)
        .map((w) => ({ wallet: w.wallet, label: w.label ?? "", net_flow_30d_usd: cents(w.net30) }))
    }
  }
  const majors = [...MAJORS.keys()].map(asset)
  const majorSums = sums()
  for (const m of MAJORS.keys()) {
    const s = byToken.get(m)?.all
    if (s) for (const k of ["net7", "gross7", "net30", "gross30"] as const) majorSums[k] += s[k]
  }
  const assets = [...byToken.entries()]
    .sort(([, a], [, b]) => b.all.gross30 - a.all.gross30 || a.symbol.localeCompare(b.symbol))
    .map(([token]) => asset(token))
  return {
    score: accumulationScore(majorSums),
    majors,
    divergence: divergenceOf(overallCohorts),
    assets,
    cohorts: cohortFlows(overallCohorts)
  }
}

const strip = (a: Asset, cohorts: boolean, accumulators: boolean): Asset => {
  const { cohorts: c, top_accumulators: t, ...rest } = a
  return { ...rest, ...(cohorts && c ? { cohorts: c } : {}), ...(accumulators && t ? { top_accumulators: t } : {}) }
}

/** The part of the model a tier may see. */
export const positioningFor = (full: Positioning, tier: Tier): Positioning => {
  const rank = TIER_RANK[tier]
  const cohorts = rank >= TIER_RANK.pro
  const accumulators = rank >= TIER_RANK.alpha
  const rows = rank >= TIER_RANK.pro ? full.assets.length : rank >= TIER_RANK.free ? 10 : 5
  return {
    score: full.score,
    majors: full.majors.map((a) => strip(a, cohorts, accumulators)),
    divergence: full.divergence,
    assets: full.assets.slice(0, rows).map((a) => strip(a, cohorts, accumulators)),
    ...(cohorts && full.cohorts ? { cohorts: full.cohorts } : {}),
    ...(full.excludes ? { excludes: full.excludes } : {})
  }
}
