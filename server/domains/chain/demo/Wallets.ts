/**
 * The demo's whales: a hundred synthetic wallets (addresses no one holds, labelled "Demo …") in the three size
 * cohorts, each with habits fixed by the seed: a style, how often it trades, its usual size, what it trades, which
 * exchanges and routers it uses, and whether it moves around macro events. DEMO DATA, not the chain: generated
 * activity never carries a real person's or firm's wallet or name (the seed wallets of data/wallets.json stay
 * tracked, for a real chain, and have no demo activity).
 */
import { keccak256, toHex } from "viem"
import type { Cohort } from "../Types"
import type { TokenGroup } from "./Market"
import { hashString, pickOne, stream } from "./Random"

export type Style = "hodler" | "smart" | "momentum" | "trader" | "shuttler"

export interface Habit {
  readonly style: Style
  readonly tradesPerDay: number
  /** Median trade size, USD. */
  readonly sizeUsd: number
  /** Share of the wallet's activity that is exchange deposits and withdrawals. */
  readonly exchangeShare: number
  /** Preference for each group of tokens (relative weights). */
  readonly groups: Readonly<Record<TokenGroup, number>>
  /** Moves around macro events (pre-positioning and reaction). */
  readonly macro: boolean
  /** Share of swaps quoted in WETH (the rest in a stablecoin). */
  readonly wethQuote: number
  readonly exchanges: ReadonlyArray<string>
  readonly routers: ReadonlyArray<string>
}

export interface DemoWallet {
  readonly address: string
  readonly label: string
  readonly cohort: Cohort
  readonly habit: Habit
}

/**
 * Wallets per cohort, in runs of indexes: the first fifty are the demo wallets of earlier versions (same addresses
 * and labels), the second fifty took the place of the seed wallets (as many per cohort as data/wallets.json has).
 */
const DEMO_COHORTS: ReadonlyArray<readonly [Cohort, number]> = [["mega", 5], ["large", 18], ["mid", 27], ["mega", 7], ["large", 15], ["mid", 28]]
const NAMES: Readonly<Record<Cohort, ReadonlyArray<string>>> = {
  mega: ["treasury", "fund", "foundation"],
  large: ["fund", "desk", "market maker", "whale"],
  mid: ["trader", "degen", "whale", "farmer"]
}

/** The address of demo wallet `i`: fixed (not seeded), so a re-seeded demo keeps its wallet table. */
export const demoWalletAddress = (i: number): string => `0x${keccak256(toHex(`whale-intelligence demo wallet ${i}`)).slice(26)}`

const STYLES: Readonly<Record<Cohort, ReadonlyArray<readonly [Style, number]>>> = {
  mega: [["hodler", 0.5], ["smart", 0.3], ["shuttler", 0.2]],
  large: [["smart", 0.35], ["trader", 0.25], ["hodler", 0.2], ["shuttler", 0.2]],
  mid: [["momentum", 0.35], ["trader", 0.3], ["smart", 0.25], ["shuttler", 0.1]]
}
const RATE: Readonly<Record<Cohort, readonly [number, number]>> = { mega: [1.5, 4], large: [4, 10], mid: [8, 20] }
const SIZE: Readonly<Record<Cohort, number>> = { mega: 1_500_000, large: 400_000, mid: 80_000 }
const GROUPS: Readonly<Record<Style, Readonly<Record<TokenGroup, number>>>> = {
  hodler: { eth: 5, lst: 2, btc: 3, defi: 1, meme: 0.1, stable: 0 },
  smart: { eth: 2, lst: 0.5, btc: 1, defi: 3, meme: 2, stable: 0 },
  momentum: { eth: 1, lst: 0.2, btc: 0.5, defi: 2, meme: 4, stable: 0 },
  trader: { eth: 3, lst: 0.5, btc: 1.5, defi: 2, meme: 1.5, stable: 0 },
  shuttler: { eth: 4, lst: 1, btc: 2, defi: 1, meme: 0.3, stable: 0 }
}

const habitOf = (seed: number, address: string, cohort: Cohort, exchanges: ReadonlyArray<string>, routers: ReadonlyArray<string>): Habit => {
  const rand = stream(seed, 0x3a, hashString(address))
  let x = rand()
  let style: Style = "trader"
  for (const [s, w] of STYLES[cohort]) {
    style = s
    if ((x -= w) < 0) break
  }
  const [lo, hi] = RATE[cohort]
  const home = [pickOne(rand, exchanges), pickOne(rand, exchanges)]
  return {
    style,
    tradesPerDay: lo + (hi - lo) * rand(),
    sizeUsd: SIZE[cohort] * (0.5 + rand()),
    exchangeShare: style === "shuttler" ? 0.55 : 0.12 + 0.12 * rand(),
    groups: GROUPS[style],
    macro: style === "hodler" || style === "shuttler" || (cohort !== "mid" && rand() < 0.6) || rand() < 0.2,
    wethQuote: 0.35 + 0.4 * rand(),
    exchanges: [...new Set(home)],
    routers: [pickOne(rand, routers), pickOne(rand, routers)]
  }
}

/** The demo wallets with their habits. */
export const demoWallets = (seed: number, exchanges: ReadonlyArray<string>, routers: ReadonlyArray<string>): Array<DemoWallet> => {
  const out: Array<DemoWallet> = []
  let i = 0
  for (const [cohort, count] of DEMO_COHORTS) {
    for (let k = 0; k < count; k++, i++) {
      const address = demoWalletAddress(i)
      const names = NAMES[cohort]
      out.push({
        address, label: `Demo ${names[i % names.length]} ${String(i + 1).padStart(2, "0")}`, cohort,
        habit: habitOf(seed, address, cohort, exchanges, routers)
      })
    }
  }
  return out
}
