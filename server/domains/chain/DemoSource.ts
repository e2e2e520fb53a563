/**
 * The `demo` chain source: DEMO DATA, not the chain. A deterministic generator of whale activity on real token
 * addresses (data/tokens.json), by the seed wallets (data/wallets.json), through real router and exchange
 * addresses (data/labels.json), so that the same decoding path runs on it as on mainnet.
 *
 * Block `n` is a pure function of (seed, n): any block can be asked for in any order and is always the same.
 * Blocks come every 12 s (or `blockMs`) of clock time from an anchor (block `anchorBlock` at `anchorTime`), so a running demo
 * grows like a chain; `latestBlockNumber` reads the Effect clock (TestClock in tests). Each block holds zero
 * to three whale transactions (swaps with an ETH or stablecoin leg via a router, exchange deposits and
 * withdrawals) and one anonymous WETH/USDC pool trade, so ETH/USD can be learned from the data as on mainnet.
 * Pools and anonymous traders have synthetic addresses; prices are the demo market's (demo/Market.ts: the ETH path and
 * token regimes the generated history was priced with), and the whales are the seed wallets and the history's demo
 * wallets.
 */
import { Clock, Effect, Layer } from "effect"
import { keccak256, parseUnits, toHex } from "viem"
import { TOPIC_TRANSFER, TOPIC_WETH_DEPOSIT, TOPIC_WETH_WITHDRAWAL } from "./Decode"
import { loadCalendar } from "./demo/Calendar"
import { DEMO_PRICE, ETH_MULTIPLE, makeMarket } from "./demo/Market"
import { demoWallets } from "./demo/Wallets"
import { DATA_DIR, WETH, loadReference, type Reference } from "./Reference"
import { BlockNotFound, ChainSource, UNKNOWN_TOKEN, type ChainSourceShape } from "./Source"
import type { Address, ChainBlock, Cohort, RawLog, RawTx, TokenInfo } from "./Types"

export interface DemoOptions {
  readonly seed?: number
  readonly anchorBlock?: number
  /** Unix seconds at which `anchorBlock` is mined. */
  readonly anchorTime?: number
  /** Clock time between blocks (default 12 s, as mainnet); block timestamps follow it. */
  readonly blockMs?: number
  readonly reference?: Reference
}

export const BLOCK_SECONDS = 12
const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
const USDT = "0xdac17f958d2ee523a2206206994597c13d831ec7"

/**
 * Whale transactions per block: one more for each of these a draw passes (about 0.43 a block, ~3,100 a day at 12 s:
 * a trade every half minute in the live feed; the generated history is sparser, ~1,000 a day).
 */
const WHALE_TX_ODDS = [0.7, 0.9, 0.97]
const COHORT_USD: Record<Cohort, number> = { mega: 5_000_000, large: 1_000_000, mid: 200_000 }

/** mulberry32 over a 32-bit mix of (seed, n). */
const prng = (seed: number, n: number) => {
  let a = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(n, 0xc2b2ae35)) >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const hashOf = (text: string) => keccak256(toHex(text))
const addressOf = (text: string): Address => `0x${hashOf(text).slice(26)}`
const topic = (address: string) => `0x${address.slice(2).padStart(64, "0")}`
const word = (value: bigint) => `0x${value.toString(16).padStart(64, "0")}`
const units = (amount: number, decimals: number) =>
  parseUnits(amount.toFixed(Math.min(decimals, 6)), decimals)

export const makeDemoSource = (options: DemoOptions = {}): ChainSourceShape & { readonly kind: "demo" } => {
  const seed = options.seed ?? 1
  const anchorBlock = options.anchorBlock ?? 20_000_000
  const anchorTime = options.anchorTime ?? 1_717_200_000
  const blockMs = Math.max(1, options.blockMs ?? BLOCK_SECONDS * 1000)
  const ref = options.reference ?? loadReference()
  const tokens = [...ref.tokens.values()].filter((t) => !t.blacklisted)
  const traded = tokens.filter((t) => DEMO_PRICE[t.symbol] !== undefined || ETH_MULTIPLE[t.symbol] !== undefined)
  const labels = [...ref.labels.values()]
  const routers = labels.filter((l) => l.category === "router" && !l.name.includes("CoW")).map((l) => l.address)
  const exchanges = labels.filter((l) => l.category === "exchange").map((l) => l.address)
  const stables = [USDC, USDT].map((a) => ref.tokens.get(a)).filter((t): t is TokenInfo => t !== undefined)
  const weth = ref.tokens.get(WETH)!

  // Prices come from the demo market the generated history was priced with (demo/Market.ts), at the block's time,
  // so the live chain continues the history's ETH path and token regimes.
  const market = makeMarket(seed, ref.tokens.values(), loadCalendar(DATA_DIR).events)
  const timeOf = (n: number) => (anchorTime * 1000 + (n - anchorBlock) * blockMs)
  const usdPrice = (t: TokenInfo, n: number) => market.usd(t, timeOf(n))
  // The demo wallets of the history (recorded only when tracked: the catalog tracks them on the demo chain).
  const whales = demoWallets(seed, ["-"], ["-"]).map((w) => ({ address: w.address, cohort: w.cohort }))

  const generate = (n: number): { block: ChainBlock; logs: Array<RawLog> } => {
    const rand = prng(seed, n)
    const pick = <T>(list: ReadonlyArray<T>): T => list[Math.floor(rand() * list.length)]!
    const blockHash = hashOf(`demo:${seed}:block:${n}`)
    const timestamp = anchorTime + Math.floor(((n - anchorBlock) * blockMs) / 1000)
    const transactions: Array<RawTx> = []
    const logs: Array<RawLog> = []
    const newTx = (from: Address, to: Address, value: bigint, input: string) => {
      const tx: RawTx = {
        hash: hashOf(`demo:${seed}:tx:${n}:${transactions.length}`), blockNumber: n, blockHash, timestamp,
        from, to, value, input, transactionIndex: transactions.length, status: "success"
      }
      transactions.push(tx)
      return tx
    }
    const log = (tx: RawTx, address: Address, topics: Array<string>, data: string) =>
      logs.push({ address, topics, data, logIndex: logs.length, transactionHash: tx.hash, blockNumber: n, blockHash })
    const transfer = (tx: RawTx, token: Address, from: Address, to: Address, value: bigint) =>
      log(tx, token, [TOPIC_TRANSFER, topic(from), topic(to)], word(value))

    /** A swap of `token` against `quote` (WETH paid or received as native ETH) through `router`. */
    const swap = (trader: Address, router: Address, token: TokenInfo, quote: TokenInfo, buy: boolean, usd: number) => {
      const pool = addressOf(`pool:${token.address}:${quote.address}`)
      const amount = units(usd / usdPrice(token, n), token.decimals)
      const quoteAmount = units(usd / usdPrice(quote, n), quote.decimals)
      const native = quote.address === WETH
      const tx = newTx(trader, router, native && buy ? quoteAmount : 0n, "0x5f575529")
      const quotePayer = native ? router : trader
      if (buy) {
        if (native) log(tx, WETH, [TOPIC_WETH_DEPOSIT, topic(router)], word(quoteAmount))
        transfer(tx, quote.address, quotePayer, pool, quoteAmount)
        transfer(tx, token.address, pool, trader, amount)
      } else {
        transfer(tx, token.address, trader, pool, amount)
        transfer(tx, quote.address, pool, quotePayer, quoteAmount)
        if (native) log(tx, WETH, [TOPIC_WETH_WITHDRAWAL, topic(router)], word(quoteAmount))
      }
    }

    const whaleTxs = WHALE_TX_ODDS.filter((p) => rand() >= p).length
    for (let i = 0; i < whaleTxs; i++) {
      const wallet = pick(whales)
      const usd = COHORT_USD[wallet.cohort] * (0.05 + 0.95 * rand() ** 2)
      if (rand() < 0.65) {
        const token = pick(traded)
        const quote = rand() < 0.5 || token.eth_derivative ? weth : pick(stables)
        swap(wallet.address, pick(routers), token, quote, rand() < 0.5, usd)
      } else {
        const exchange = pick(exchanges)
        const r = rand()
        const token = r < 0.4 ? weth : r < 0.7 ? pick(stables) : pick(traded)
        const amount = units(usd / usdPrice(token, n), token.decimals)
        const [from, to] = rand() < 0.5 ? [wallet.address, exchange] : [exchange, wallet.address]
        if (token.address === WETH) newTx(from, to, amount, "0x")
        else transfer(newTx(from, token.address, 0n, "0xa9059cbb"), token.address, from, to, amount)
      }
    }
    const trader = addressOf(`trader:${seed}:${n}`)
    swap(trader, pick(routers), weth, stables[0]!, rand() < 0.5, 20_000 + 80_000 * rand())

    const parentHash = hashOf(`demo:${seed}:block:${n - 1}`)
    return { block: { number: n, hash: blockHash, parentHash, timestamp, transactions }, logs }
  }

  const latest = Clock.currentTimeMillis.pipe(
    Effect.map((ms) => anchorBlock + Math.max(0, Math.floor((ms - anchorTime * 1000) / blockMs)))
  )
  const inRange = (n: number) => latest.pipe(Effect.map((head) => n >= 0 && n <= head))
  /** Transaction hash → block, for receipts of blocks already handed out (bounded). */
  const handedOut = new Map<string, number>()
  const hand = (n: number) => {
    const generated = generate(n)
    for (const tx of generated.block.transactions) handedOut.set(tx.hash, n)
    for (const oldest of handedOut.keys()) {
      if (handedOut.size <= 100_000) break
      handedOut.delete(oldest)
    }
    return generated
  }

  return {
    kind: "demo",
    latestBlockNumber: latest,
    getBlock: (n) =>
      Effect.flatMap(inRange(n), (ok) => (ok ? Effect.sync(() => hand(n).block) : Effect.fail(new BlockNotFound({ number: n })))),
    getLogs: ({ fromBlock, toBlock }) =>
      Effect.map(latest, (head) => {
        const numbers = Array.from({ length: Math.max(0, Math.min(toBlock, head) - fromBlock + 1) }, (_, i) => fromBlock + i)
        return numbers.flatMap((n) => hand(n).logs)
      }),
    getReceipt: (hash) =>
      Effect.sync(() => {
        const n = handedOut.get(hash.toLowerCase())
        if (n === undefined) return null
        const { block, logs } = generate(n)
        return { status: "success" as const, blockHash: block.hash, logs: logs.filter((l) => l.transactionHash === hash) }
      }),
    readTokenMeta: (address) => Effect.sync(() => ref.tokens.get(address.toLowerCase()) ?? UNKNOWN_TOKEN)
  }
}

/** The `demo` source as the app's `ChainSource` (the embedded default when no ETH_RPC_URL is set). */
export const DemoSourceLive = (options: DemoOptions = {}) => Layer.sync(ChainSource, () => makeDemoSource(options))
