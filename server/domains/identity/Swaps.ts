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
import { TOPICS } from "../chain/LogTopics"
import type { RawLog } from "../chain/Types"
import type { Swap, SwapProtocol, TokenMove } from "./Types"

export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"


const PROTOCOL_OF = new Map<string, SwapProtocol>([
  [TOPICS.uniswapV2Swap, "uniswap_v2"], [TOPICS.uniswapV3Swap, "uniswap_v3"], [TOPICS.curveExchange, "curve"],
  [TOPICS.curveExchangeUint, "curve"], [TOPICS.curveExchangeNg, "curve"], [TOPICS.curveExchangeUnderlying, "curve"],
  [TOPICS.balancerV2Swap, "balancer_v2"]
])

export const isSwapTopic = (topic0: string | undefined) => topic0 !== undefined && PROTOCOL_OF.has(topic0)

const PADDING = "0x000000000000000000000000"
/** The address in a 32-byte topic (sources hand topics over in lower case), or undefined when it holds none. */
export const topicAddress = (topic: string | undefined): string | undefined =>
  topic !== undefined && topic.length === 66 && topic.startsWith(PADDING) ? `0x${topic.slice(26)}` : undefined

/** The n-th 32-byte word of `data`, unsigned; undefined when the data is shorter. */
const ZERO_WORD = "0".repeat(64)
const word = (data: string, n: number): bigint | undefined => {
  const start = 2 + n * 64
  if (data.length < start + 64) return undefined
  if (data.startsWith(ZERO_WORD, start)) return 0n
  try {
    return BigInt(`0x${data.slice(start, start + 64)}`)
  } catch {
    return undefined
  }
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
    // amount0In, amount1In, amount0Out, amount1Out: one of each pair is the swap's (the other, zero, is not parsed).
    const a0In = word(log.data, 0)
    const amountIn = a0In === 0n ? word(log.data, 1) : a0In
    const a0Out = word(log.data, 2)
    const amountOut = a0Out === 0n ? word(log.data, 3) : a0Out
    const to = topicAddress(log.topics[2])
    if (sender === undefined || to === undefined || amountIn === undefined || amountOut === undefined || log.data.length < 258) return undefined
    return { amountIn, amountOut, sender, recipient: to, pool: log.address, holder: log.address }
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

/**
 * The transfers of `token` (any, when undefined) into and out of `holder` logged after `after` and before `before`
 * (`moves` are in log order): the one whose amount matches the event's, else the last. One pass, nothing allocated.
 */
const around = (moves: ReadonlyArray<TokenMove>, holder: string, after: number, before: number, event: EventSide) => {
  let into: TokenMove | undefined
  let outOf: TokenMove | undefined
  let intoExact = false
  let outExact = false
  for (const m of moves) {
    if (m.logIndex <= after) continue
    if (m.logIndex >= before) break
    if (m.to === holder && (event.tokenIn === undefined || m.token === event.tokenIn) && !intoExact) {
      into = m
      intoExact = m.amount === event.amountIn
    } else if (m.from === holder && (event.tokenOut === undefined || m.token === event.tokenOut) && !outExact) {
      outOf = m
      outExact = m.amount === event.amountOut
    }
  }
  return { into, outOf }
}

/**
 * The swaps of one transaction, in log order. `moves` are the transaction's token movements (Activity.ts); `logs`
 * its logs in order.
 */
export const swapsOf = (
  tx: { readonly hash: string; readonly transactionIndex: number; readonly from: string; readonly to: string | null },
  logs: ReadonlyArray<RawLog>, moves: ReadonlyArray<TokenMove>
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
    const { into, outOf } = around(moves, event.holder, after, log.logIndex, event)
    const nativeSide = protocol === "curve" ? WETH : undefined
    const tokenIn = event.tokenIn ?? into?.token ?? nativeSide
    const tokenOut = event.tokenOut ?? outOf?.token ?? nativeSide
    if (tokenIn === undefined || tokenOut === undefined || tokenIn === tokenOut) continue
    swaps.push({
      txHash: tx.hash, txIndex: tx.transactionIndex, txFrom: tx.from, txTo: tx.to, logIndex: log.logIndex, pool: event.pool, protocol, tokenIn, tokenOut,
      amountIn: event.amountIn, amountOut: event.amountOut,
      payer: into?.from ?? event.sender,
      recipient: outOf?.to ?? event.recipient ?? event.sender
    })
  }
  return swaps
}
