/**
 * Worst-case blocks for `bench:identity`: 2,400 swap logs each, in the shapes the mainnet fixture shows (blocks
 * 17173049–17173050), written as the logs a node returns for them — synthetic data, not mainnet:
 *   450 Universal Router buys (ETH value wrapped by the router, paid to a V2 pair, tokens to the user),
 *   300 V2 Router02 sells (tokens to the pair, WETH to the router, unwrapped), 150 SwapRouter02 V3 buys,
 *   300 aggregator routes (router → executor → a V2 and a V3 pool → executor → router → user),
 *   150 sandwiches (a bot contract buys, a user buys through the Universal Router, the bot sells),
 *   150 three-pool arbitrage cycles by bot contracts.
 * Users come from a window that slides by 600 a block (more than half were met in the block before); 20 bots,
 * 2,100 pools, 200 tokens. Each block says what the rules must find in it (`expect`).
 */
import type { ChainBlock, RawLog } from "../server/domains/chain/Types"
import { TOPICS } from "../server/domains/chain/LogTopics"

const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
export const UNIVERSAL_ROUTER = "0xef1c6e67703c7bd7107eed8303fbe6ec2554bf6b"
const ROUTER02 = "0x7a250d5630b4cf539739df2c5dacb4c659f2488d"
const SWAP_ROUTER02 = "0x68b3465833fb72a70ecdf485e0e4c7bd8665fc45"
const AGGREGATOR = "0x1111111254eeb25477b68fb85ed929f73a960582"

const hex = (n: bigint | number, width = 64) => BigInt(n).toString(16).padStart(width, "0")
const address = (kind: number, n: number) => `0x${hex(kind, 8)}${hex(n, 32)}`
const word = (a: string) => `0x${"0".repeat(24)}${a.slice(2)}`
const signed = (v: bigint) => hex(v < 0n ? (1n << 256n) + v : v)

export const user = (n: number) => address(0x05e4, n)
export const bot = (n: number) => address(0xb07, n % 20)
export const botEoa = (n: number) => address(0xe0a, n % 20)
const executor = (n: number) => address(0xe8ec, n % 8)
const pool = (n: number) => address(0x9001, n)
const token = (n: number) => address(0x70c, n % 200)

/** What eth_getCode would answer: code for contracts (routers, bots, executors, pools, tokens), none for people. */
export const codeOf = (a: string) => (a.startsWith("0x000005e4") || a.startsWith("0x00000e0a") ? "0x" : "0x6080604052")

interface Tx { from: string; to: string; value: bigint; logs: Array<Omit<RawLog, "logIndex" | "transactionHash" | "blockNumber" | "blockHash">> }

const transfer = (tk: string, from: string, to: string, amount: bigint) => ({ address: tk, topics: [TOPICS.transfer, word(from), word(to)], data: `0x${hex(amount)}` })
const deposit = (who: string, amount: bigint) => ({ address: WETH, topics: [TOPICS.wethDeposit, word(who)], data: `0x${hex(amount)}` })
const withdrawal = (who: string, amount: bigint) => ({ address: WETH, topics: [TOPICS.wethWithdrawal, word(who)], data: `0x${hex(amount)}` })
const v2 = (p: string, sender: string, to: string, amountIn: bigint, amountOut: bigint) =>
  ({ address: p, topics: [TOPICS.uniswapV2Swap, word(sender), word(to)], data: `0x${hex(amountIn)}${hex(0)}${hex(0)}${hex(amountOut)}` })
const v3 = (p: string, sender: string, to: string, amountIn: bigint, amountOut: bigint) =>
  ({ address: p, topics: [TOPICS.uniswapV3Swap, word(sender), word(to)], data: `0x${signed(amountIn)}${signed(-amountOut)}${hex(1)}${hex(1)}${hex(0)}` })
/** payer → pool (unless the previous hop paid it already: `paid`), pool → recipient, the event: one swap. */
const swap = (p: string, payer: string, recipient: string, tin: string, tout: string, ain: bigint, aout: bigint, kind: "v2" | "v3" = "v2", sender = payer, paid = false) => [
  ...(paid ? [] : [transfer(tin, payer, p, ain)]), transfer(tout, p, recipient, aout),
  kind === "v2" ? v2(p, sender, recipient, ain, aout) : v3(p, sender, recipient, ain, aout)
]

const E = 10n ** 18n

export interface BenchBlock {
  readonly block: ChainBlock
  readonly logs: ReadonlyArray<RawLog>
  readonly expect: { readonly swaps: number; readonly sandwiches: number; readonly arbitrages: number }
}

export const worstCaseBlock = (number: number): BenchBlock => {
  const txs: Array<Tx> = []
  let k = 0
  /** 1,350 users a block, from a window sliding by 600: 750 of them were met in the block before. */
  const nextUser = () => user(number * 600 + k++)
  for (let i = 0; i < 150; i++) {
    const [b, e, p, tk, victim] = [bot(i), botEoa(i), pool(i), token(i), nextUser()]
    txs.push({ from: e, to: b, value: 0n, logs: swap(p, b, b, WETH, tk, E, 1000n) })
    txs.push({ from: victim, to: UNIVERSAL_ROUTER, value: E, logs: [deposit(UNIVERSAL_ROUTER, E), ...swap(p, UNIVERSAL_ROUTER, victim, WETH, tk, E, 900n)] })
    txs.push({ from: e, to: b, value: 0n, logs: swap(p, b, b, tk, WETH, 1000n, 11n * E / 10n) })
  }
  for (let i = 0; i < 150; i++) {
    const [b, e, p1, p2, p3] = [bot(i + 7), botEoa(i + 7), pool(150 + i * 3), pool(151 + i * 3), pool(152 + i * 3)]
    const [a, c] = [token(i + 50), token(i + 51)]
    txs.push({ from: e, to: b, value: 0n, logs: [
      ...swap(p1, b, p2, WETH, a, E, 5000n), ...swap(p2, p1, p3, a, c, 5000n, 700n, "v2", b, true), ...swap(p3, p2, b, c, WETH, 700n, 101n * E / 100n, "v3", b, true)
    ] })
  }
  for (let i = 0; i < 300; i++) {
    const [x, who, p1, p2] = [executor(i), nextUser(), pool(600 + i * 2), pool(601 + i * 2)]
    const [a, c] = [token(i + 20), token(i + 21)]
    txs.push({ from: who, to: AGGREGATOR, value: E, logs: [
      deposit(x, E), ...swap(p1, x, p2, WETH, a, E, 3000n), ...swap(p2, p1, x, a, c, 3000n, 77n, "v3", x, true),
      transfer(c, x, AGGREGATOR, 77n), transfer(c, AGGREGATOR, who, 77n)
    ] })
  }
  for (let i = 0; i < 450; i++) {
    const who = nextUser()
    txs.push({ from: who, to: UNIVERSAL_ROUTER, value: E / 10n, logs: [deposit(UNIVERSAL_ROUTER, E / 10n), ...swap(pool(1200 + i), UNIVERSAL_ROUTER, who, WETH, token(i), E / 10n, 400n)] })
  }
  for (let i = 0; i < 300; i++) {
    const who = nextUser()
    txs.push({ from: who, to: ROUTER02, value: 0n, logs: [...swap(pool(1650 + i), who, ROUTER02, token(i + 3), WETH, 800n, E / 20n, "v2", ROUTER02), withdrawal(ROUTER02, E / 20n)] })
  }
  for (let i = 0; i < 150; i++) {
    const who = nextUser()
    txs.push({ from: who, to: SWAP_ROUTER02, value: E / 5n, logs: [deposit(SWAP_ROUTER02, E / 5n), ...swap(pool(1950 + i), SWAP_ROUTER02, who, WETH, token(i + 9), E / 5n, 120n, "v3")] })
  }
  const hash = `0x${hex(number)}`
  const timestamp = 1_700_000_000 + number * 12
  const logs: Array<RawLog> = []
  const transactions = txs.map((t, i) => {
    const txHash = `0x${hex(number, 24)}${hex(i, 40)}`
    for (const l of t.logs) logs.push({ ...l, logIndex: logs.length, transactionHash: txHash, blockNumber: number, blockHash: hash })
    return { hash: txHash, blockNumber: number, blockHash: hash, timestamp, from: t.from, to: t.to, value: t.value, input: "0x3593564c", transactionIndex: i, status: "success" as const }
  })
  // As the listener is handed them: decoded from JSON-RPC's JSON (RpcSource.ts), so every string is flat. The strings
  // built above are concatenations (V8 ropes), which the engine's first read of each would flatten — a cost of this
  // generator, not of the listener's path.
  const flatTxs = JSON.parse(JSON.stringify(transactions, (_, v) => (typeof v === "bigint" ? `${v}n` : v)), (_, v) =>
    typeof v === "string" && /^\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v) as typeof transactions
  return {
    block: { number, hash, parentHash: `0x${hex(number - 1)}`, timestamp, transactions: flatTxs },
    logs: JSON.parse(JSON.stringify(logs)) as Array<RawLog>,
    expect: { swaps: 2_400, sandwiches: 150, arbitrages: 150 }
  }
}
