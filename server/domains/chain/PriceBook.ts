/**
 * USD values from the data itself (ARCHITECTURE §6): a stablecoin leg is worth $1 per unit; a WETH leg is worth
 * the latest ETH/USD price learned from WETH–stablecoin swaps seen so far (tracked wallets' own, and any clean
 * WETH/stable pair in a transaction, such as the pool of a swap); a token whose price a priced swap revealed
 * prices that token's later exchange flows. What cannot be priced keeps `usd = null`.
 *
 * A `PriceBook` is transient state of one ingestion run (rebuild it by replaying from a checkpoint, or persist
 * `ethUsd()` with the checkpoint). Feed it in chain order: `observeTx`, then `price` each record, then `observe`.
 */
import { TOPIC_TRANSFER } from "./Decode"
import { WETH, type TokenLookup } from "./Reference"
import type { RawLog, WhaleRecord } from "./Types"

export interface PricePoint {
  readonly price: number
  readonly block: number
  /** Position in the block, so that a later observation in the same block wins. */
  readonly logIndex: number
}

/** ETH/USD outside this range is treated as a bad observation (a broken pool, a depeg, dust). */
const ETH_USD_RANGE = [1, 1_000_000] as const
const MIN_OBSERVATION_USD = 10

const newer = (a: PricePoint, b: PricePoint | undefined | null) =>
  b == null || a.block > b.block || (a.block === b.block && a.logIndex >= b.logIndex)

export class PriceBook {
  #eth: PricePoint | null = null
  readonly #tokens = new Map<string, PricePoint>()

  constructor(private readonly tokens: TokenLookup) {}

  /** The most recent ETH/USD price seen, with the block it was seen in. */
  ethUsd(): PricePoint | null {
    return this.#eth
  }

  observeEth(point: PricePoint): void {
    const [low, high] = ETH_USD_RANGE
    if (Number.isFinite(point.price) && point.price >= low && point.price <= high && newer(point, this.#eth)) {
      this.#eth = point
    }
  }

  /** Learns from a priced record: ETH/USD from a WETH–stablecoin trade, the token's price from any other. */
  observe(record: WhaleRecord): void {
    const at = { block: record.block, logIndex: record.logIndex }
    if (record.token === WETH && this.isStable(record.counterToken) && record.counterAmount !== null) {
      const usd = Number(record.counterAmount)
      if (usd >= MIN_OBSERVATION_USD) this.observeEth({ price: usd / Number(record.amount), ...at })
    }
    if (record.priceUsd !== null && record.token !== WETH && !this.isStable(record.token)) {
      const point = { price: record.priceUsd, ...at }
      if (newer(point, this.#tokens.get(record.token))) this.#tokens.set(record.token, point)
    }
  }

  /** Learns ETH/USD from a transaction's clean WETH/stablecoin pair movements (e.g. the pool of a swap). */
  observeTx(logs: ReadonlyArray<RawLog>): void {
    for (const point of ethUsdObservations(logs, this.tokens)) this.observeEth(point)
  }

  /** The record with `usd` and `priceUsd` filled where the data allows. */
  price(record: WhaleRecord): WhaleRecord {
    const amount = Number(record.amount)
    const unitKnown = record.decimals !== null && amount > 0
    const perUnit = (usd: number | null) => (usd !== null && unitKnown ? usd / amount : null)
    const counter = record.counterAmount === null ? null : Number(record.counterAmount)
    const eth = this.#eth?.price ?? null
    let usd: number | null = null
    if (this.isStable(record.token)) usd = amount
    else if (counter !== null && this.isStable(record.counterToken)) usd = counter
    else if (record.token === WETH && eth !== null) usd = amount * eth
    else if (counter !== null && record.counterToken === WETH && eth !== null) usd = counter * eth
    else if (unitKnown) {
      const known = this.#tokens.get(record.token)
      if (known !== undefined) usd = amount * known.price
    }
    return { ...record, usd, priceUsd: perUnit(usd) }
  }

  private isStable(address: string | null): boolean {
    return address !== null && this.tokens(address)?.stable === true
  }
}

/**
 * ETH/USD implied by every address whose net movement in the transaction is exactly WETH one way and one
 * stablecoin the other (a pool, a trader, a solver), at the transaction's last log. Dust is ignored.
 */
export const ethUsdObservations = (logs: ReadonlyArray<RawLog>, tokens: TokenLookup): Array<PricePoint> => {
  const nets = new Map<string, Map<string, bigint>>()
  let last: RawLog | undefined
  const add = (holder: string, token: string, delta: bigint) => {
    const byToken = nets.get(holder) ?? new Map<string, bigint>()
    nets.set(holder, byToken)
    byToken.set(token, (byToken.get(token) ?? 0n) + delta)
  }
  for (const log of logs) {
    if (last === undefined || log.logIndex > last.logIndex) last = log
    if (log.topics[0]?.toLowerCase() !== TOPIC_TRANSFER || log.topics.length !== 3) continue
    if (!/^0x[0-9a-fA-F]{64}$/.test(log.data)) continue
    const value = BigInt(log.data)
    add(`0x${log.topics[1]!.slice(26).toLowerCase()}`, log.address, -value)
    add(`0x${log.topics[2]!.slice(26).toLowerCase()}`, log.address, value)
  }
  if (last === undefined) return []
  const points: Array<PricePoint> = []
  for (const byToken of nets.values()) {
    const moved = [...byToken].filter(([, v]) => v !== 0n)
    if (moved.length !== 2) continue
    const weth = moved.find(([t]) => t === WETH)
    const stable = moved.find(([t]) => t !== WETH && tokens(t)?.stable === true)
    const decimals = stable === undefined ? undefined : tokens(stable[0])?.decimals
    if (weth === undefined || stable === undefined || decimals == null || weth[1] > 0n === stable[1] > 0n) continue
    const usd = Math.abs(Number(stable[1])) / 10 ** decimals
    const ethAmount = Math.abs(Number(weth[1])) / 1e18
    if (usd >= MIN_OBSERVATION_USD && ethAmount > 0) {
      points.push({ price: usd / ethAmount, block: last.blockNumber, logIndex: last.logIndex })
    }
  }
  return points
}
