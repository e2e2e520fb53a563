/**
 * Synthetic blocks for the identity rules' unit tests: transactions written as the logs a node would return (ERC-20
 * Transfers, WETH Deposit/Withdrawal, Uniswap V2/V3 swaps, Curve exchanges), with hashes and log positions
 * assigned in order. Test data, not mainnet: addresses are `addr(n)`, tokens `TOKEN_A`… .
 */
import { encodeAbiParameters, keccak256, pad, stringToHex } from "viem"
import { TOPICS } from "../../server/domains/chain/LogTopics"
import type { ChainBlock, RawLog } from "../../server/domains/chain/Types"

export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
export const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}`
export const TOKEN_A = addr(0xa0)
export const TOKEN_B = addr(0xb0)
export const TOKEN_C = addr(0xc0)

type LogSpec = { readonly address: string; readonly topics: ReadonlyArray<string>; readonly data: string }
const word = (a: string) => pad(a as `0x${string}`, { size: 32 }).toLowerCase()
const uints = (...values: ReadonlyArray<bigint>) => encodeAbiParameters(values.map(() => ({ type: "uint256" })), values)

export const transfer = (token: string, from: string, to: string, amount: bigint): LogSpec =>
  ({ address: token, topics: [TOPICS.transfer, word(from), word(to)], data: uints(amount) })
export const deposit = (who: string, amount: bigint): LogSpec => ({ address: WETH, topics: [TOPICS.wethDeposit, word(who)], data: uints(amount) })
export const withdrawal = (who: string, amount: bigint): LogSpec => ({ address: WETH, topics: [TOPICS.wethWithdrawal, word(who)], data: uints(amount) })

/** A Uniswap V2 pair's Swap (token0 in → token1 out when `zeroForOne`). */
export const v2Swap = (pool: string, sender: string, to: string, amountIn: bigint, amountOut: bigint, zeroForOne = true): LogSpec => ({
  address: pool, topics: [TOPICS.uniswapV2Swap, word(sender), word(to)],
  data: zeroForOne ? uints(amountIn, 0n, 0n, amountOut) : uints(0n, amountIn, amountOut, 0n)
})
export const v3Swap = (pool: string, sender: string, recipient: string, amount0: bigint, amount1: bigint): LogSpec => ({
  address: pool, topics: [TOPICS.uniswapV3Swap, word(sender), word(recipient)],
  data: encodeAbiParameters([{ type: "int256" }, { type: "int256" }, { type: "uint160" }, { type: "uint128" }, { type: "int24" }], [amount0, amount1, 1n, 1n, 0])
})
export const curveExchange = (pool: string, buyer: string, sold: bigint, bought: bigint): LogSpec => ({
  address: pool, topics: [TOPICS.curveExchange, word(buyer)],
  data: encodeAbiParameters([{ type: "int128" }, { type: "uint256" }, { type: "int128" }, { type: "uint256" }], [0n, sold, 1n, bought])
})

/** A V2 swap as it happens: `payer` pays the pool, the pool pays `recipient`, then the event. */
export const poolSwap = (o: { pool: string; payer: string; recipient: string; tokenIn: string; tokenOut: string; amountIn: bigint; amountOut: bigint; sender?: string }) => [
  transfer(o.tokenIn, o.payer, o.pool, o.amountIn),
  transfer(o.tokenOut, o.pool, o.recipient, o.amountOut),
  v2Swap(o.pool, o.sender ?? o.payer, o.recipient, o.amountIn, o.amountOut)
]

export interface TxSpec { readonly from: string; readonly to: string | null; readonly value?: bigint; readonly logs: ReadonlyArray<LogSpec> }

/** A block of these transactions in order, and its logs. */
export const blockOf = (number: number, txs: ReadonlyArray<TxSpec>): { block: ChainBlock; logs: Array<RawLog>; hashes: Array<string> } => {
  const hash = keccak256(stringToHex(`block:${number}`))
  const hashes = txs.map((_, i) => keccak256(stringToHex(`tx:${number}:${i}`)))
  const logs: Array<RawLog> = []
  txs.forEach((t, i) => {
    for (const l of t.logs) logs.push({ ...l, topics: [...l.topics], logIndex: logs.length, transactionHash: hashes[i]!, blockNumber: number, blockHash: hash })
  })
  return {
    block: {
      number, hash, parentHash: keccak256(stringToHex(`block:${number - 1}`)), timestamp: 1_700_000_000 + number * 12,
      transactions: txs.map((t, i) => ({
        hash: hashes[i]!, blockNumber: number, blockHash: hash, timestamp: 1_700_000_000 + number * 12, from: t.from, to: t.to,
        value: t.value ?? 0n, input: "0x12345678", transactionIndex: i, status: "success" as const
      }))
    },
    logs,
    hashes
  }
}
