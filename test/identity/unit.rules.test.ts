/**
 * The behaviour rules on synthetic blocks written as a node's logs (test/identity/support.ts): sandwiches and not
 * router sequences, profitable cycles and not mere routes, pass-through routers (a Curve router path among them),
 * exchange sweeps, and the event selectors the chain source asks its node for.
 */
import { toEventSelector } from "viem"
import { describe, expect, it } from "vitest"
import { SWAP_EVENTS, TOPICS } from "../../server/domains/chain/LogTopics"
import { readActivity } from "../../server/domains/identity/Activity"
import { runRules, type RuleContext } from "../../server/domains/identity/Rules"
import { addr, blockOf, curveExchange, deposit, poolSwap, TOKEN_A, TOKEN_B, TOKEN_C, transfer, WETH, withdrawal, type TxSpec } from "./support"

const ROUTER = addr(0x7707) // labelled router in these tests
const EXCHANGE = addr(0xe8)
const ctx: RuleContext = {
  isRouter: (a) => a === ROUTER,
  exchangeOf: (a) => (a === EXCHANGE ? "Binance" : undefined)
}
const run = (txs: ReadonlyArray<TxSpec>) => {
  const { block, logs, hashes } = blockOf(100, txs)
  return { ...runRules(readActivity(block, logs), ctx), hashes }
}
const classes = (findings: ReadonlyArray<{ address: string; class: string; rule: string }>, address: string) =>
  [...new Set(findings.filter((f) => f.address === address).map((f) => `${f.class}:${f.rule}`))].sort()

const POOL = addr(0x9001)
const BOT = addr(0xb07)
const BOT_EOA = addr(0xe0a1)
const buy = (payer: string, recipient: string, amountIn: bigint, amountOut: bigint) =>
  poolSwap({ pool: POOL, payer, recipient, tokenIn: WETH, tokenOut: TOKEN_A, amountIn, amountOut })
const sell = (payer: string, recipient: string, amountIn: bigint, amountOut: bigint) =>
  poolSwap({ pool: POOL, payer, recipient, tokenIn: TOKEN_A, tokenOut: WETH, amountIn, amountOut })

describe("sandwich rule", () => {
  it("finds the searcher contract and its EOA around another account's same-direction swap, not the victim", () => {
    const victim = addr(0xf1)
    const r = run([
      { from: BOT_EOA, to: BOT, logs: buy(BOT, BOT, 10n ** 18n, 1000n) },
      { from: victim, to: ROUTER, value: 10n ** 18n, logs: [deposit(ROUTER, 10n ** 18n), ...buy(ROUTER, victim, 10n ** 18n, 900n)] },
      { from: BOT_EOA, to: BOT, logs: sell(BOT, BOT, 1000n, 11n * 10n ** 17n) }
    ])
    expect(r.sandwiches).toHaveLength(1)
    expect(r.sandwiches[0]).toMatchObject({ pool: POOL, searcherContract: BOT, searcherEoas: [BOT_EOA] })
    expect(r.sandwiches[0]!.front.txHash).toBe(r.hashes[0])
    expect(r.sandwiches[0]!.back.txHash).toBe(r.hashes[2])
    expect(r.sandwiches[0]!.victims.map((v) => v.txHash)).toEqual([r.hashes[1]])
    expect(classes(r.findings, BOT)).toEqual(["mev_bot:sandwich"])
    expect(classes(r.findings, BOT_EOA)).toEqual(["mev_bot:sandwich"])
    expect(classes(r.findings, victim)).toEqual(["trader:dex_swap"])
    expect(classes(r.findings, ROUTER)).toEqual(["router:pass_through"])
  })

  it("finds nothing in three router swaps by three users (buy, buy, sell) in one pool", () => {
    const router = addr(0x7708) // not labelled: the rule must tell it from a searcher on its own
    const users = [addr(0xf1), addr(0xf2), addr(0xf3)]
    const r = run([
      { from: users[0]!, to: router, logs: buy(users[0]!, users[0]!, 10n ** 18n, 1000n) },
      { from: users[1]!, to: ROUTER, logs: buy(users[1]!, users[1]!, 10n ** 18n, 900n) },
      { from: users[2]!, to: router, logs: [...sell(users[2]!, router, 500n, 4n * 10n ** 17n), withdrawal(router, 4n * 10n ** 17n)] }
    ])
    expect(r.sandwiches).toEqual([])
    expect(r.findings.filter((f) => f.class === "mev_bot")).toEqual([])
  })

  it("needs the back-run to reverse the front-run in the same pool, after a victim", () => {
    const r = run([
      { from: BOT_EOA, to: BOT, logs: buy(BOT, BOT, 10n ** 18n, 1000n) },
      { from: BOT_EOA, to: BOT, logs: sell(BOT, BOT, 1000n, 10n ** 18n) },
      { from: addr(0xf1), to: ROUTER, logs: buy(addr(0xf1), addr(0xf1), 10n ** 18n, 900n) }
    ])
    expect(r.sandwiches).toEqual([])
  })
})

describe("atomic arbitrage rule", () => {
  const P1 = addr(0x9101)
  const P2 = addr(0x9102)
  const P3 = addr(0x9103)
  it("finds a profitable cycle WETH → A → WETH through two pools, searcher and sender", () => {
    const r = run([{
      from: BOT_EOA, to: BOT, logs: [
        ...poolSwap({ pool: P1, payer: BOT, recipient: P2, tokenIn: WETH, tokenOut: TOKEN_A, amountIn: 10n ** 18n, amountOut: 5000n }),
        ...poolSwap({ pool: P2, payer: P1, recipient: BOT, tokenIn: TOKEN_A, tokenOut: WETH, amountIn: 5000n, amountOut: 102n * 10n ** 16n, sender: BOT })
      ]
    }])
    expect(r.arbitrages).toHaveLength(1)
    expect(r.arbitrages[0]).toMatchObject({ searcher: BOT, token: WETH, profit: 2n * 10n ** 16n })
    expect(classes(r.findings, BOT)).toEqual(["mev_bot:arbitrage"])
    expect(classes(r.findings, BOT_EOA)).toEqual(["mev_bot:arbitrage"])
  })

  it("finds nothing in a losing cycle, nor in three swaps that do not close one", () => {
    const loss = run([{
      from: BOT_EOA, to: BOT, logs: [
        ...poolSwap({ pool: P1, payer: BOT, recipient: BOT, tokenIn: WETH, tokenOut: TOKEN_A, amountIn: 10n ** 18n, amountOut: 5000n }),
        ...poolSwap({ pool: P2, payer: BOT, recipient: BOT, tokenIn: TOKEN_A, tokenOut: WETH, amountIn: 5000n, amountOut: 99n * 10n ** 16n })
      ]
    }])
    expect(loss.arbitrages).toEqual([])
    const user = addr(0xf4)
    const route = run([{
      from: user, to: ROUTER, logs: [
        ...poolSwap({ pool: P1, payer: user, recipient: P2, tokenIn: WETH, tokenOut: TOKEN_A, amountIn: 10n ** 18n, amountOut: 5000n }),
        ...poolSwap({ pool: P2, payer: P1, recipient: P3, tokenIn: TOKEN_A, tokenOut: TOKEN_B, amountIn: 5000n, amountOut: 700n }),
        ...poolSwap({ pool: P3, payer: P2, recipient: user, tokenIn: TOKEN_B, tokenOut: TOKEN_C, amountIn: 700n, amountOut: 90n })
      ]
    }])
    expect(route.arbitrages).toEqual([])
    expect(route.findings.filter((f) => f.class === "mev_bot")).toEqual([])
    expect(classes(route.findings, user)).toEqual(["trader:dex_swap"])
    expect(classes(route.findings, P3)).toEqual(["pool:swap_event"])
  })
})

describe("pass-through rule", () => {
  it("calls a Curve router path a router: USDC in from the user, two Curve pools, DAI out to the user", () => {
    const user = addr(0xf5)
    const curveRouter = addr(0xc4e7)
    const [c1, c2] = [addr(0xc1), addr(0xc2)]
    const r = run([{
      from: user, to: curveRouter, logs: [
        transfer(TOKEN_A, user, curveRouter, 1000n),
        transfer(TOKEN_A, curveRouter, c1, 1000n), transfer(TOKEN_B, c1, curveRouter, 998n), curveExchange(c1, curveRouter, 1000n, 998n),
        transfer(TOKEN_B, curveRouter, c2, 998n), transfer(TOKEN_C, c2, curveRouter, 997n), curveExchange(c2, curveRouter, 998n, 997n),
        transfer(TOKEN_C, curveRouter, user, 997n)
      ]
    }])
    expect(classes(r.findings, curveRouter)).toEqual(["router:pass_through"])
    expect(classes(r.findings, c1)).toEqual(["pool:swap_event"])
    expect(classes(r.findings, c2)).toEqual(["pool:swap_event"])
    expect(classes(r.findings, user)).toEqual(["trader:dex_swap"])
  })

  it("calls an aggregator and its executor routers (ETH forwarded invisibly), never a contract that keeps its output", () => {
    const user = addr(0xf6)
    const [aggregator, executor] = [addr(0xa661), addr(0xe8ec)]
    const r = run([{
      from: user, to: aggregator, value: 10n ** 18n, logs: [
        deposit(executor, 997n * 10n ** 15n),
        ...poolSwap({ pool: POOL, payer: executor, recipient: executor, tokenIn: WETH, tokenOut: TOKEN_A, amountIn: 997n * 10n ** 15n, amountOut: 1000n }),
        transfer(TOKEN_A, executor, aggregator, 1000n), transfer(TOKEN_A, aggregator, user, 1000n)
      ]
    }, {
      from: addr(0xf7), to: addr(0xfa57), logs: [
        transfer(TOKEN_B, addr(0xf7), addr(0xfa57), 500n),
        ...poolSwap({ pool: addr(0x9201), payer: addr(0xfa57), recipient: addr(0xfa57), tokenIn: TOKEN_B, tokenOut: TOKEN_A, amountIn: 500n, amountOut: 40n })
      ]
    }])
    expect(classes(r.findings, aggregator)).toEqual(["router:pass_through"])
    expect(classes(r.findings, executor)).toEqual(["router:pass_through"])
    expect(classes(r.findings, addr(0xfa57))).toEqual([])
  })

  it("does not call a staking contract forwarding a deposit a router (no trade in the transaction)", () => {
    const r = run([{ from: addr(0xf8), to: addr(0x57a6), logs: [transfer(TOKEN_A, addr(0xf8), addr(0x57a6), 10n), transfer(TOKEN_A, addr(0x57a6), addr(0x7a17), 10n)] }])
    expect(r.findings).toEqual([])
  })
})

describe("exchange sweep rule", () => {
  it("calls an address that only sends into a labelled exchange wallet a deposit address (0.8 when swept by another)", () => {
    const [own, forwarder, sweeper] = [addr(0xd1), addr(0xd2), addr(0x5e)]
    const r = run([
      { from: own, to: TOKEN_A, logs: [transfer(TOKEN_A, own, EXCHANGE, 5n)] },
      { from: sweeper, to: addr(0x5e5e), logs: [transfer(TOKEN_B, forwarder, EXCHANGE, 7n)] }
    ])
    expect(r.findings.filter((f) => f.rule === "exchange_sweep").map((f) => [f.address, f.class, f.exchange, f.confidence])).toEqual([
      [own, "exchange", "Binance", 0.6], [forwarder, "exchange", "Binance", 0.8]
    ])
  })
})

it("asks the node for the swap events the rules read (selectors match their ABI)", () => {
  expect(SWAP_EVENTS.map((e) => toEventSelector(e))).toEqual([
    TOPICS.uniswapV2Swap, TOPICS.uniswapV3Swap, TOPICS.curveExchange, TOPICS.curveExchangeUint, TOPICS.curveExchangeNg,
    TOPICS.curveExchangeUnderlying, TOPICS.balancerV2Swap, TOPICS.cowTrade
  ])
})
