import { Effect, TestClock, TestContext } from "effect"
import { describe, expect, it } from "vitest"
import { decodeTransaction, TOPIC_TRANSFER, TOPIC_WETH_DEPOSIT, TOPIC_WETH_WITHDRAWAL, type DecodeContext } from "../../server/domains/chain/Decode"
import { BLOCK_SECONDS, makeDemoSource } from "../../server/domains/chain/DemoSource"
import { demoWallets } from "../../server/domains/chain/demo/Wallets"
import { ingestBlock, TokenCache } from "../../server/domains/chain/Ingest"
import { PriceBook } from "../../server/domains/chain/PriceBook"
import { labelLookup, loadReference, tokenLookup, WETH } from "../../server/domains/chain/Reference"
import { WhaleRecord, type RawLog, type RawTx } from "../../server/domains/chain/Types"

const ref = loadReference()
const JUMP = "0xf584f8728b874a6a5c7a8d4d387c9aae9172d621"
const V2_ROUTER = "0x7a250d5630b4cf539739df2c5dacb4c659f2488d"
const UNIVERSAL = "0xef1c6e67703c7bd7107eed8303fbe6ec2554bf6b"
const METAMASK = "0x881d40237659c251811cec9c364ef91dc08d300c"
const ONEINCH_V5 = "0x1111111254eeb25477b68fb85ed929f73a960582"
const BINANCE_14 = "0x28c6c06298d514db089934071355e5743bf21d60"
const PEPE = "0x6982508145454ce325ddbe47a25d4ec3d2311933"
const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
const USDT = "0xdac17f958d2ee523a2206206994597c13d831ec7"
const MYSTERY = "0x1234567890abcdef1234567890abcdef12345678"
const POOL = "0x00000000000000000000000000000000000000aa"
const STRANGER = "0x00000000000000000000000000000000000000bb"
const TX = `0x${"ab".repeat(32)}`
const BLOCK_HASH = `0x${"cd".repeat(32)}`

const ctx: DecodeContext = { wallets: new Set([JUMP]), tokens: tokenLookup(ref.tokens), labels: labelLookup(ref.labels) }
const topic = (a: string) => `0x${a.slice(2).padStart(64, "0")}`
const word = (v: bigint) => `0x${v.toString(16).padStart(64, "0")}`
const log = (logIndex: number, address: string, topics: Array<string>, data: string, tx = TX): RawLog =>
  ({ address, topics, data, logIndex, transactionHash: tx, blockNumber: 100, blockHash: BLOCK_HASH })
const transfer = (i: number, token: string, from: string, to: string, v: bigint) =>
  log(i, token, [TOPIC_TRANSFER, topic(from), topic(to)], word(v))
const withdrawal = (i: number, src: string, v: bigint) => log(i, WETH, [TOPIC_WETH_WITHDRAWAL, topic(src)], word(v))
const deposit = (i: number, dst: string, v: bigint) => log(i, WETH, [TOPIC_WETH_DEPOSIT, topic(dst)], word(v))
const tx = (over: Partial<RawTx> = {}): RawTx => ({
  hash: TX, blockNumber: 100, blockHash: BLOCK_HASH, timestamp: 1_700_000_000, from: JUMP, to: V2_ROUTER,
  value: 0n, input: "0x", transactionIndex: 3, status: "success", ...over
})
const E18 = 10n ** 18n

describe("decodeTransaction: swaps", () => {
  it("ETH → token through a router is a dex_buy of the token, paid in WETH, at the token's first log", () => {
    const records = decodeTransaction({
      tx: tx({ value: 2n * E18 }),
      logs: [deposit(4, V2_ROUTER, 2n * E18), transfer(5, WETH, V2_ROUTER, POOL, 2n * E18), transfer(7, PEPE, POOL, JUMP, 123_456_789n * E18 + 1n)]
    }, ctx)
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({
      category: "dex_buy", wallet: JUMP, token: PEPE, symbol: "PEPE", decimals: 18, amount: "123456789.000000000000000001",
      amountRaw: (123_456_789n * E18 + 1n).toString(), counterToken: WETH, counterSymbol: "WETH", counterAmount: "2",
      venue: "Uniswap V2", logIndex: 7, block: 100, blockHash: BLOCK_HASH, usd: null
    })
    expect(records[0]!.ts.toISOString()).toBe("2023-11-14T22:13:20.000Z")
  })

  it("token → ETH counts the router's WETH Withdrawal as the wallet's proceeds", () => {
    const records = decodeTransaction({
      tx: tx(),
      logs: [transfer(10, PEPE, JUMP, POOL, 5n * E18), transfer(11, WETH, POOL, V2_ROUTER, 3n * E18), withdrawal(12, V2_ROUTER, 3n * E18)]
    }, ctx)
    expect(records.map((r) => [r.category, r.token, r.amount, r.counterAmount, r.logIndex])).toEqual([["dex_sell", PEPE, "5", "3", 10]])
  })

  it("ignores a fee-on-transfer token's own swap-back: only the called router's unwrap pays the wallet", () => {
    const logs = [transfer(1, PEPE, JUMP, POOL, E18), withdrawal(2, V2_ROUTER, 7n * E18), withdrawal(3, UNIVERSAL, E18)]
    expect(decodeTransaction({ tx: tx({ to: UNIVERSAL }), logs }, ctx)[0]?.counterAmount).toBe("1")
    // A known front (MetaMask) that delegated to a known router (1inch) which unwrapped: the router pays.
    const delegated = [transfer(1, USDT, JUMP, POOL, 200_000_000n), withdrawal(2, ONEINCH_V5, E18 / 10n)]
    expect(decodeTransaction({ tx: tx({ to: METAMASK }), logs: delegated }, ctx)[0]).toMatchObject({
      category: "dex_buy", token: WETH, amount: "0.1", counterToken: USDT, counterAmount: "200", venue: "MetaMask Swaps"
    })
    // An unknown front whose executor unwrapped: the unaccounted Withdrawal pays the sender, and the record says so.
    expect(decodeTransaction({ tx: tx({ to: STRANGER }), logs: delegated }, ctx)[0]).toMatchObject({
      category: "dex_buy", token: WETH, amount: "0.1", counterToken: USDT, ethVia: "inferred"
    })
    // …unless the sender received something else, or the executor wrapped the ETH again.
    expect(decodeTransaction({ tx: tx({ to: STRANGER }), logs: [...delegated, transfer(3, USDC, POOL, JUMP, 5n)] }, ctx).some((r) => r.token === WETH)).toBe(false)
    expect(decodeTransaction({ tx: tx({ to: STRANGER }), logs: [...delegated, deposit(4, ONEINCH_V5, E18 / 10n)] }, ctx)).toEqual([])
  })

  it("uses traced internal transfers instead of guessing from Withdrawal events when given", () => {
    const logs = [transfer(1, PEPE, JUMP, POOL, E18), withdrawal(2, V2_ROUTER, 9n * E18)]
    const internal = [{ from: V2_ROUTER, to: JUMP, value: 4n * E18 }]
    expect(decodeTransaction({ tx: tx(), logs, internal }, ctx)[0]?.counterAmount).toBe("4")
  })

  it("records survive a JSON round trip through the WhaleRecord schema (bus payloads)", () => {
    const [record] = decodeTransaction({ tx: tx({ value: E18 }), logs: [transfer(5, PEPE, POOL, JUMP, 10n ** 26n)] }, ctx)
    expect(WhaleRecord.parse(JSON.parse(JSON.stringify(record)))).toEqual(record)
  })

  it("a token ↔ stablecoin swap records the token with the stable leg as counter", () => {
    const records = decodeTransaction({ tx: tx(), logs: [transfer(3, USDC, JUMP, POOL, 1_500_250_000n), transfer(4, PEPE, POOL, JUMP, 10n ** 26n)] }, ctx)
    expect(records[0]).toMatchObject({ category: "dex_buy", token: PEPE, amount: "100000000", counterToken: USDC, counterAmount: "1500.25" })
  })

  it("WETH ↔ stablecoin is a trade of WETH; stable ↔ stable and token ↔ token record nothing", () => {
    const sell = decodeTransaction({ tx: tx(), logs: [transfer(1, WETH, JUMP, POOL, 2n * E18), transfer(2, USDC, POOL, JUMP, 3_600_000_000n)] }, ctx)
    expect(sell.map((r) => [r.category, r.symbol, r.counterSymbol, r.counterAmount])).toEqual([["dex_sell", "WETH", "USDC", "3600"]])
    const buy = decodeTransaction({ tx: tx(), logs: [transfer(1, USDT, JUMP, POOL, 1_000_000n), transfer(2, WETH, POOL, JUMP, E18 / 2000n)] }, ctx)
    expect(buy.map((r) => [r.category, r.symbol, r.amount])).toEqual([["dex_buy", "WETH", "0.0005"]])
    expect(decodeTransaction({ tx: tx(), logs: [transfer(1, USDC, JUMP, POOL, 10n ** 9n), transfer(2, USDT, POOL, JUMP, 10n ** 9n)] }, ctx)).toEqual([])
    expect(decodeTransaction({ tx: tx(), logs: [transfer(1, PEPE, JUMP, POOL, E18), transfer(2, MYSTERY, POOL, JUMP, 5n)] }, ctx)).toEqual([])
  })
})

describe("decodeTransaction: exchange flows and odd data", () => {
  it("classifies transfers to and from labelled exchanges, native ETH as WETH at position -1", () => {
    expect(decodeTransaction({ tx: tx({ to: USDT }), logs: [transfer(8, USDT, JUMP, BINANCE_14, 25_000_000_000n)] }, ctx)[0])
      .toMatchObject({ category: "exchange_deposit", token: USDT, amount: "25000", venue: "Binance", counterToken: null, logIndex: 8 })
    expect(decodeTransaction({ tx: tx({ from: BINANCE_14, to: USDC }), logs: [transfer(2, USDC, BINANCE_14, JUMP, 7n)] }, ctx)[0])
      .toMatchObject({ category: "exchange_withdraw", amount: "0.000007", venue: "Binance" })
    expect(decodeTransaction({ tx: tx({ to: BINANCE_14, value: 15n * E18 / 10n }), logs: [] }, ctx)[0])
      .toMatchObject({ category: "exchange_deposit", token: WETH, amount: "1.5", logIndex: -1 })
    expect(decodeTransaction({ tx: tx({ to: USDT }), logs: [transfer(8, USDT, JUMP, STRANGER, 10n)] }, ctx)).toEqual([])
  })

  it("skips ERC-721 transfers, malformed logs and other transactions' logs; unknown tokens stay UNKNOWN", () => {
    const logs = [
      log(1, MYSTERY, [TOPIC_TRANSFER, topic(JUMP), topic(BINANCE_14), word(5n)], "0x"),
      log(2, PEPE, [TOPIC_TRANSFER, topic(JUMP), topic(BINANCE_14)], "0x1234"),
      log(3, PEPE, [TOPIC_TRANSFER, "0xdeadbeef", topic(BINANCE_14)], word(5n)),
      { ...transfer(4, PEPE, JUMP, BINANCE_14, E18), transactionHash: `0x${"ef".repeat(32)}` },
      transfer(5, MYSTERY, JUMP, BINANCE_14, 42n)
    ]
    const records = decodeTransaction({ tx: tx({ to: MYSTERY }), logs }, ctx)
    expect(records.map((r) => [r.token, r.symbol, r.decimals, r.amount, r.amountRaw, r.logIndex]))
      .toEqual([[MYSTERY, "UNKNOWN", null, "42", "42", 5]])
  })

  it("records nothing for reverted transactions, untracked wallets or blacklisted tokens", () => {
    const logs = [transfer(1, USDC, JUMP, POOL, 10n ** 9n), transfer(2, PEPE, POOL, JUMP, E18)]
    expect(decodeTransaction({ tx: tx({ status: "reverted", value: E18 }), logs }, ctx)).toEqual([])
    expect(decodeTransaction({ tx: tx(), logs }, { ...ctx, wallets: new Set([STRANGER]) })).toEqual([])
    const banned = (a: string) => (a === PEPE ? { ...ref.tokens.get(PEPE)!, blacklisted: true } : ref.tokens.get(a))
    expect(decodeTransaction({ tx: tx(), logs }, { ...ctx, tokens: banned })).toEqual([])
  })
})

describe("PriceBook", () => {
  const pepeForEth = decodeTransaction({ tx: tx({ value: E18 }), logs: [transfer(5, PEPE, POOL, JUMP, 10n ** 26n)] }, ctx)[0]!
  const poolTrade = (block: number, usdc: bigint, weth: bigint) =>
    [transfer(1, USDC, STRANGER, POOL, usdc), transfer(2, WETH, POOL, STRANGER, weth)].map((l) => ({ ...l, blockNumber: block }))

  it("prices a WETH leg only once an ETH/USD price was seen, and keeps the most recent one", () => {
    const book = new PriceBook(tokenLookup(ref.tokens))
    expect(book.price(pepeForEth).usd).toBeNull()
    book.observeTx(poolTrade(99, 2_000_000_000n, E18))
    expect(book.ethUsd()).toEqual({ price: 2000, block: 99, logIndex: 2 })
    book.observeTx(poolTrade(98, 1_000_000_000n, E18))
    expect(book.ethUsd()?.price).toBe(2000)
    expect(book.price(pepeForEth)).toMatchObject({ usd: 2000, priceUsd: 0.00002 })
    book.observeTx(poolTrade(101, 5n, E18)) // dust: a $0.000005 trade says nothing about ETH
    expect(book.ethUsd()?.block).toBe(99)
  })

  it("learns ETH/USD from a tracked WETH–stable trade and a token's price for its later exchange flows", () => {
    const book = new PriceBook(tokenLookup(ref.tokens))
    const sell = decodeTransaction({ tx: tx(), logs: [transfer(1, WETH, JUMP, POOL, 2n * E18), transfer(2, USDC, POOL, JUMP, 3_000_000_000n)] }, ctx)[0]!
    book.observe(book.price(sell))
    expect(book.ethUsd()?.price).toBe(1500)
    book.observe(book.price(pepeForEth))
    const deposit = decodeTransaction({ tx: tx({ to: PEPE }), logs: [transfer(9, PEPE, JUMP, BINANCE_14, 5n * 10n ** 25n)] }, ctx)[0]!
    expect(book.price(deposit)).toMatchObject({ usd: 750, category: "exchange_deposit" })
  })
})

describe("DemoSource", () => {
  const run = <A>(effect: Effect.Effect<A, unknown>) =>
    Effect.runPromise(Effect.gen(function* () {
      yield* TestClock.setTime((1_717_200_000 + 200 * BLOCK_SECONDS) * 1000)
      return yield* effect
    }).pipe(Effect.provide(TestContext.TestContext)))
  const records = (seed: number) => Effect.gen(function* () {
    const source = makeDemoSource({ seed })
    const tokens = new TokenCache(ref.tokens.values())
    const ingest = { wallets: new Set(demoWallets(seed, [], []).map((w) => w.address)), labels: labelLookup(ref.labels), tokens, prices: new PriceBook(tokens.lookup) }
    const head = yield* source.latestBlockNumber
    const out = []
    for (let n = head - 150; n <= head; n++) out.push(...(yield* ingestBlock(source, n, ingest)).records)
    return { head, out, kind: source.kind }
  })

  it("is labelled demo, follows the clock, and gives the same records for the same seed", async () => {
    const a = await run(records(7))
    const b = await run(records(7))
    const c = await run(records(8))
    expect(a.kind).toBe("demo")
    expect(a.head).toBe(20_000_200)
    expect(a.out.length).toBeGreaterThan(10)
    expect(b.out).toEqual(a.out)
    expect(c.out).not.toEqual(a.out)
    const categories = new Set(a.out.map((r) => r.category))
    expect([...categories].sort()).toEqual(["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"])
    // The demo wallets trade, never the seed wallets (real people's and firms').
    const demo = new Set(demoWallets(7, [], []).map((w) => w.address))
    expect(a.out.every((r) => ref.tokens.has(r.token) && demo.has(r.wallet) && !ref.wallets.some((w) => w.address === r.wallet))).toBe(true)
    const eth = a.out.find((r) => r.counterToken === WETH && r.usd !== null)
    expect(eth?.usd).toBeGreaterThan(1000)
  })
})

describe("reference data", () => {
  it("has the main stablecoins, ETH derivatives, exchanges and routers, and 40–80 seed wallets", () => {
    const bySymbol = new Map([...ref.tokens.values()].map((t) => [t.symbol, t]))
    for (const s of ["USDC", "USDT", "DAI", "FRAX", "LUSD", "TUSD", "USDP", "GUSD", "PYUSD", "crvUSD", "USDe"]) expect(bySymbol.get(s)?.stable).toBe(true)
    for (const s of ["WETH", "stETH", "wstETH", "rETH", "cbETH"]) expect(bySymbol.get(s)?.eth_derivative).toBe(true)
    expect([bySymbol.get("USDC")?.decimals, bySymbol.get("GUSD")?.decimals, bySymbol.get("WBTC")?.decimals]).toEqual([6, 2, 8])
    expect(ref.tokens.size).toBeGreaterThanOrEqual(60)
    const exchanges = new Set([...ref.labels.values()].flatMap((l) => (l.category === "exchange" ? [l.exchange] : [])))
    for (const e of ["Binance", "Coinbase", "Kraken", "OKX", "Bitfinex", "Gemini", "KuCoin", "Bybit", "Crypto.com", "Gate", "HTX"]) expect(exchanges).toContain(e)
    expect(ref.labels.get(V2_ROUTER)).toMatchObject({ category: "router", venue: "Uniswap V2" })
    expect(ref.wallets.length).toBeGreaterThanOrEqual(40)
    expect(ref.wallets.length).toBeLessThanOrEqual(80)
  })
})
