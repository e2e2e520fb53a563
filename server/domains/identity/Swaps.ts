/**
 * Swaps read from logs alone (no traces needed): the pool's own event says a swap happened and how much moved; the
 * ERC-20 transfers around it say which tokens and who paid and received — as mev-inspect does with traces, here
 * with the transfers logged between the pool's previous swap in the transaction and this one.
 *
 * Events: Uniswap V2 `Swap` (and its forks: SushiSwap, …), Uniswap V3 `Swap`, Curve `TokenExchange` (int128 and
 * uint256 coin ids, the NG variant) and `TokenExchangeUnderlying`, Balancer V2's vault `Swap` (tokens in its
 * topics; the pool is the first 20 bytes of the pool id). A swap whose tokens cannot be told is left out.
 * Curve pools that take or pay native ETH move it without a transfer: that side is counted as WETH.
 */
import type { RawLog } from "../chain/Types"
import type { Swap, SwapProtocol, TokenMove } from "./Types"

export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
export const BALANCER_VAULT = "0xba12222222228d8ba445958a75a0704d566bf2c8"

export const SWAP_TOPICS = {
  uniswapV2: "0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822",
  uniswapV3: "0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67",
  curve: "0x8b3e96f2b889fa771c53c981b40daf005f63f637f1869f707052d15a3dd97140",
  curveUint: "0xb2e76ae99761dc136e598d4a629bb347eccb9532a5f8bbd72e18467c3c34cc98",
  curveNg: "0x143f1f8e861fbdeddd5b46e844b7d3ac7b86a122f36e8c463859ee6811b1f29c",
  curveUnderlying: "0xd013ca23e77a65003c2c659c5442c00c805371b7fc1ebd4c206c41d1536bd90b",
  balancerV2: "0x2170c741c41531aec20e7c107c24eecfdd15e69c9bb0a8dd37b1840b9e0b207b"
} as const

const PROTOCOL_OF = new Map<string, SwapProtocol>([
  [SWAP_TOPICS.uniswapV2, "uniswap_v2"], [SWAP_TOPICS.uniswapV3, "uniswap_v3"], [SWAP_TOPICS.curve, "curve"],
  [SWAP_TOPICS.curveUint, "curve"], [SWAP_TOPICS.curveNg, "curve"], [SWAP_TOPICS.curveUnderlying, "curve"],
  [SWAP_TOPICS.balancerV2, "balancer_v2"]
])

export const isSwapTopic = (topic0: string | undefined) => topic0 !== undefined && PROTOCOL_OF.has(topic0)

const ADDRESS_WORD = /^0x0{24}[0-9a-f]{40}$/
export const topicAddress = (topic: string | undefined): string | undefined =>
  topic !== undefined && ADDRESS_WORD.test(topic) ? `0x${topic.slice(26)}` : undefined

/** The n-th 32-byte word of `data`, unsigned; undefined when the data is shorter. */
const word = (data: string, n: number): bigint | undefined => {
  const start = 2 + n * 64
  return data.length >= start + 64 ? BigInt(`0x${data.slice(start, start + 64)}`) : undefined
}
const signed = (v: bigint) => (v >= 1n << 255n ? v - (1n << 256n) : v)

/** What the event itself says: amounts, the sender or buyer, the recipient, and tokens when it names them. */
interface EventSide {
  readonly amountIn: bigint
  readonly amountOut: bigint
  readonly sender: string
  readonly recipient: string | null
  readonly tokenIn?: string
  readonly tokenOut?: string
  readonly pool: string
  /** Where the tokens are held (the pool itself; Balancer's vault). */
  readonly holder: string
}

const readEvent = (log: RawLog, protocol: SwapProtocol): EventSide | undefined => {
  const sender = topicAddress(log.topics[1])
  if (protocol === "uniswap_v2") {
    const [a0In, a1In, a0Out, a1Out] = [0, 1, 2, 3].map((n) => word(log.data, n))
    const to = topicAddress(log.topics[2])
    if (sender === undefined || to === undefined || a0In === undefined || a1In === undefined || a0Out === undefined || a1Out === undefined) return undefined
    return { amountIn: a0In > 0n ? a0In : a1In, amountOut: a0Out > 0n ? a0Out : a1Out, sender, recipient: to, pool: log.address, holder: log.address }
  }
  if (protocol === "uniswap_v3") {
    const [r0, r1] = [word(log.data, 0), word(log.data, 1)]
    const recipient = topicAddress(log.topics[2])
    if (sender === undefined || recipient === undefined || r0 === undefined || r1 === undefined) return undefined
    const [a0, a1] = [signed(r0), signed(r1)]
    const amountIn = a0 > 0n ? a0 : a1
    const amountOut = a0 < 0n ? -a0 : -a1
    return { amountIn, amountOut, sender, recipient, pool: log.address, holder: log.address }
  }
  if (protocol === "curve") {
    const [sold, bought] = [word(log.data, 1), word(log.data, 3)]
    if (sender === undefined || sold === undefined || bought === undefined) return undefined
    return { amountIn: sold, amountOut: bought, sender, recipient: null, pool: log.address, holder: log.address }
  }
  const pool = log.topics[1]?.slice(0, 42)
  const [tokenIn, tokenOut] = [topicAddress(log.topics[2]), topicAddress(log.topics[3])]
  const [amountIn, amountOut] = [word(log.data, 0), word(log.data, 1)]
  if (pool === undefined || tokenIn === undefined || tokenOut === undefined || amountIn === undefined || amountOut === undefined) return undefined
  return { amountIn, amountOut, sender: log.address, recipient: null, tokenIn, tokenOut, pool, holder: log.address }
}

/** The move whose amount matches the event's, else the last one. */
const pick = (moves: ReadonlyArray<TokenMove>, amount: bigint, token?: string) => {
  const fitting = token === undefined ? moves : moves.filter((m) => m.token === token)
  return fitting.find((m) => m.amount === amount) ?? fitting.at(-1)
}

/**
 * The swaps of one transaction, in log order. `moves` are the transaction's token movements (Activity.ts); `logs`
 * its logs in order.
 */
export const swapsOf = (
  tx: { readonly hash: string; readonly index: number }, logs: ReadonlyArray<RawLog>, moves: ReadonlyArray<TokenMove>
): Array<Swap> => {
  const swaps: Array<Swap> = []
  const previous = new Map<string, number>()
  for (const log of logs) {
    const protocol = PROTOCOL_OF.get(log.topics[0] ?? "")
    if (protocol === undefined) continue
    const event = readEvent(log, protocol)
    if (event === undefined) continue
    const after = previous.get(event.holder) ?? -1
    previous.set(event.holder, log.logIndex)
    const window = moves.filter((m) => m.logIndex > after && m.logIndex < log.logIndex)
    const into = pick(window.filter((m) => m.to === event.holder), event.amountIn, event.tokenIn)
    const outOf = pick(window.filter((m) => m.from === event.holder), event.amountOut, event.tokenOut)
    const nativeSide = protocol === "curve" ? WETH : undefined
    const tokenIn = event.tokenIn ?? into?.token ?? nativeSide
    const tokenOut = event.tokenOut ?? outOf?.token ?? nativeSide
    if (tokenIn === undefined || tokenOut === undefined || tokenIn === tokenOut) continue
    swaps.push({
      txHash: tx.hash, txIndex: tx.index, logIndex: log.logIndex, pool: event.pool, protocol, tokenIn, tokenOut,
      amountIn: event.amountIn, amountOut: event.amountOut,
      payer: into?.from ?? event.sender,
      recipient: outOf?.to ?? event.recipient ?? event.sender
    })
  }
  return swaps
}
