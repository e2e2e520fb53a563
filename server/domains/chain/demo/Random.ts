/**
 * Seeded, pure randomness for the demo chain: every value is a function of (seed, key…), never of call order,
 * so any hour of the demo history can be generated alone and always comes out the same.
 */

/** A 32-bit hash of integers (murmur3's finalizer over a running mix). */
export const mix = (...parts: ReadonlyArray<number>): number => {
  let h = 0x811c9dc5 >>> 0
  for (const p of parts) {
    let k = Math.imul((p | 0) ^ Math.floor(p / 4294967296), 0xcc9e2d51)
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593)
    h ^= k
    h = (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) >>> 0
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/** FNV-1a of a string (token addresses and names as keys). */
export const hashString = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** A uniform number in [0, 1) fixed by the key. */
export const unit = (...parts: ReadonlyArray<number>): number => mix(...parts) / 4294967296

/** A mulberry32 stream started from the key. */
export const stream = (...parts: ReadonlyArray<number>): (() => number) => {
  let a = mix(...parts)
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export type Rand = () => number

/** A standard normal draw (Box–Muller). */
export const normal = (rand: Rand): number => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand())

/** A Poisson draw (Knuth; the demo's rates are small). */
export const poisson = (rand: Rand, lambda: number): number => {
  if (lambda <= 0) return 0
  if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * normal(rand)))
  const limit = Math.exp(-lambda)
  let k = 0
  let p = rand()
  while (p > limit) {
    k++
    p *= rand()
  }
  return k
}

export const pickOne = <T>(rand: Rand, list: ReadonlyArray<T>): T => list[Math.floor(rand() * list.length)]!

/** One of `list` with probability proportional to `weight`. */
export const pickWeighted = <T>(rand: Rand, list: ReadonlyArray<T>, weight: (item: T) => number): T => {
  const total = list.reduce((s, x) => s + Math.max(0, weight(x)), 0)
  let r = rand() * total
  for (const item of list) {
    r -= Math.max(0, weight(item))
    if (r < 0) return item
  }
  return list[list.length - 1]!
}

/** Smooth value noise in [-1, 1]: lattice values every `period` ms, cosine-interpolated. */
export const valueNoise = (key: number, t: number, period: number): number => {
  const x = t / period
  const i = Math.floor(x)
  const f = x - i
  const a = unit(key, i) * 2 - 1
  const b = unit(key, i + 1) * 2 - 1
  const w = (1 - Math.cos(Math.PI * f)) / 2
  return a + (b - a) * w
}

/** Sum of value noise octaves: `[period ms, amplitude]` pairs. */
export const fractalNoise = (key: number, t: number, octaves: ReadonlyArray<readonly [number, number]>): number => {
  let sum = 0
  for (let o = 0; o < octaves.length; o++) sum += octaves[o]![1] * valueNoise(mix(key, o), t, octaves[o]![0])
  return sum
}

/** 0 → 1 smoothly over [0, 1] (clamped). */
export const smoothstep = (u: number): number => {
  const x = Math.min(1, Math.max(0, u))
  return x * x * (3 - 2 * x)
}
