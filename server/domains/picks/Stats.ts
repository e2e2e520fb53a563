/**
 * Summary statistics of picks, pure. Every rate comes with its n and a 95 % Wilson score interval, and no rate at
 * all below the minimum n (PICKS_MIN_N, default 20): `value`, `low` and `high` are null and `insufficient` is true.
 * Medians carry a distribution-free 95 % interval from order statistics (binomial, n ≥ 6; null otherwise).
 */

const Z95 = 1.959963984540054

export interface Rate {
  readonly hits: number
  readonly n: number
  readonly value: number | null
  readonly low: number | null
  readonly high: number | null
  readonly insufficient: boolean
}

const r4 = (x: number) => Math.round(x * 10_000) / 10_000

/** Wilson score interval of hits / n at 95 %. */
export const wilson = (hits: number, n: number): { value: number; low: number; high: number } => {
  const p = hits / n
  const z2 = Z95 * Z95
  const denom = 1 + z2 / n
  const centre = (p + z2 / (2 * n)) / denom
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom
  return { value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

export const rate = (hits: number, n: number, minN: number): Rate => {
  if (n < minN || n === 0) return { hits, n, value: null, low: null, high: null, insufficient: true }
  const w = wilson(hits, n)
  return { hits, n, value: r4(w.value), low: r4(w.low), high: r4(w.high), insufficient: false }
}

export interface Median {
  readonly n: number
  readonly value: number | null
  readonly low: number | null
  readonly high: number | null
}

const sortedCopy = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)

export const quantileSorted = (s: ReadonlyArray<number>, q: number): number | null => {
  if (s.length === 0) return null
  const pos = (s.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo)
}

/** Binomial(n, 1/2) cumulative probability P(X ≤ k). */
const binomHalfCdf = (k: number, n: number) => {
  let term = Math.pow(0.5, n)
  let sum = term
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i
    sum += term
  }
  return sum
}

/** Median with its 95 % order-statistic interval [x(k), x(n−k+1)], the largest k with P(X < k) ≤ 2.5 %. */
export const median = (xs: ReadonlyArray<number>, minN: number): Median => {
  const n = xs.length
  if (n < minN || n === 0) return { n, value: null, low: null, high: null }
  const s = sortedCopy(xs)
  const value = quantileSorted(s, 0.5)!
  let k = 0
  while (k + 1 <= n && binomHalfCdf(k, n) <= 0.025) k++
  // k: the number of order statistics cut from each side (1-based x(k) … x(n−k+1)).
  if (k === 0) return { n, value: r4(value), low: null, high: null }
  return { n, value: r4(value), low: r4(s[k - 1]!), high: r4(s[n - k]!) }
}

export interface Bin {
  /** Inclusive lower edge, as a return (0.1 = +10 %). */
  readonly from: number
  /** Exclusive upper edge; null for the open last bin. */
  readonly to: number | null
  readonly count: number
}

/** Histogram over fixed edges; values below the first edge go to the first bin, the last bin is open. */
export const histogram = (xs: ReadonlyArray<number>, edges: ReadonlyArray<number>): ReadonlyArray<Bin> => {
  const counts = edges.map(() => 0)
  for (const x of xs) {
    let i = edges.length - 1
    while (i > 0 && x < edges[i]!) i--
    counts[i]! += 1
  }
  return edges.map((from, i) => ({ from, to: edges[i + 1] ?? null, count: counts[i]! }))
}

/** Return edges of the histograms: −100 %, −50 %, −25 %, −10 %, 0, +10 %, +25 %, +50 %, +100 %, +200 %, +300 %. */
export const RETURN_EDGES = [-1, -0.5, -0.25, -0.1, 0, 0.1, 0.25, 0.5, 1, 2, 3] as const

export const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? null : r4(xs.reduce((a, b) => a + b, 0) / xs.length))
