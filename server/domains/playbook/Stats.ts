/** Small statistics for the playbook: mean, median, sample spread, z-score, a seeded bootstrap interval. */

export const mean = (xs: ReadonlyArray<number>): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length)

export const median = (xs: ReadonlyArray<number>): number | null => {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** Sample standard deviation (n − 1); null below two values. */
export const sampleSd = (xs: ReadonlyArray<number>): number | null => {
  if (xs.length < 2) return null
  const m = mean(xs)!
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1))
}

/** (x − mean) / sd of the reference values; null with fewer than two of them or no spread. */
export const zScore = (x: number, reference: ReadonlyArray<number>): number | null => {
  const sd = sampleSd(reference)
  if (sd === null || sd === 0) return null
  return (x - mean(reference)!) / sd
}

/** mulberry32: a small deterministic PRNG (the same data gives the same interval). */
export const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The q-quantile (0…1) of sorted values, linear between neighbours. */
export const quantile = (sorted: ReadonlyArray<number>, q: number): number => {
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}

/**
 * Percentile bootstrap 95 % interval of the mean: `resamples` resamples with replacement, the 2.5th and 97.5th
 * percentiles of their means. Null below two values.
 */
export const bootstrapMeanCi = (xs: ReadonlyArray<number>, resamples = 2000, seed = 0x5eed): readonly [number, number] | null => {
  if (xs.length < 2) return null
  const rand = prng(seed)
  const means = new Array<number>(resamples)
  for (let r = 0; r < resamples; r++) {
    let sum = 0
    for (let i = 0; i < xs.length; i++) sum += xs[Math.floor(rand() * xs.length)]!
    means[r] = sum / xs.length
  }
  means.sort((a, b) => a - b)
  return [quantile(means, 0.025), quantile(means, 0.975)]
}

/** Rounds to cents (USD figures leave the service with two decimals): the one rounding of schema/numbers.ts. */
export { cents } from "../../../schema/numbers"

export const round = (x: number, digits = 4) => {
  const f = 10 ** digits
  return Math.round(x * f) / f
}
