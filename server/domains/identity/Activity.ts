/**
 * What one block shows about the addresses in it, read from the block's transactions and logs only: per
 * transaction its token movements (ERC-20 Transfers, WETH Deposit and Withdrawal, the transaction's ETH value),
 * its swaps (Swaps.ts), the contracts that logged, and the owners of CoW Protocol orders it settled.
 *
 * `participants` is every address that took part in a swap or a token movement: senders and receivers, pools,
 * swap payers and recipients, the sender of a transaction that swapped or moved tokens, and the contract a swapping
 * transaction called.
 * Token contracts themselves (the emitters of Transfer logs) are not participants unless they also moved tokens.
 */
import { TOPICS } from "../chain/LogTopics"
import type { ChainBlock, RawLog } from "../chain/Types"
import { isSwapTopic, swapsOf, topicAddress, WETH } from "./Swaps"
import type { BlockActivity, Swap, TokenMove, TxActivity } from "./Types"

/** CoW Protocol's GPv2Settlement (its `Trade(address indexed owner, …)` event names the order's owner). */
export const COW_SETTLEMENT = "0x9008d19f58aabd9ed0d60971565aa8510560ab41"
const ZERO = "0x0000000000000000000000000000000000000000"

const NO_OWNERS: Array<string> = []
const NO_LOGS: Array<RawLog> = []

/** The items by position: as they are when already in order (sources hand them over so), else a sorted copy. */
const inOrder = <T>(items: ReadonlyArray<T>, position: (item: T) => number): ReadonlyArray<T> => {
  for (let i = 1; i < items.length; i++) if (position(items[i - 1]!) > position(items[i]!)) return [...items].sort((a, b) => position(a) - position(b))
  return items
}
const NO_SWAPS: Array<Swap> = []
// Module functions, not arrows written at the call: those were one closure per call (two per transaction).
const txPosition = (tx: ChainBlock["transactions"][number]) => tx.transactionIndex
const logPosition = (log: RawLog) => log.logIndex

/** The first 32-byte word of a log's data, or undefined when it is not hex. */
const firstWord = (data: string): bigint | undefined => {
  try {
    return BigInt(data.slice(0, 66))
  } catch {
    return undefined
  }
}

const moveOf = (log: RawLog): TokenMove | undefined => {
  const topic0 = log.topics[0]
  if (log.data.length < 66) return undefined
  if (topic0 === TOPICS.transfer && log.topics.length === 3) {
    const from = topicAddress(log.topics[1])
    const to = topicAddress(log.topics[2])
    const amount = firstWord(log.data)
    if (from === undefined || to === undefined || amount === undefined) return undefined
    return { token: log.address, from, to, amount, logIndex: log.logIndex }
  }
  if (log.address === WETH && log.topics.length === 2) {
    const who = topicAddress(log.topics[1])
    const amount = firstWord(log.data)
    if (who === undefined || amount === undefined) return undefined
    if (topic0 === TOPICS.wethDeposit) return { token: WETH, from: null, to: who, amount, logIndex: log.logIndex }
    if (topic0 === TOPICS.wethWithdrawal) return { token: WETH, from: who, to: null, amount, logIndex: log.logIndex }
  }
  return undefined
}

/** Reads a block's activity. `logs` may hold other blocks' logs and topics the rules do not read: both are ignored. */
export const readActivity = (block: ChainBlock, logs: ReadonlyArray<RawLog>): BlockActivity => {
  const byTx = new Map<string, Array<RawLog>>()
  // Nodes hand a block's logs over grouped by transaction: a log of the same transaction as the one before joins its
  // list without a map lookup (hashing each log's transaction hash was a tenth of this function's time).
  let lastHash: string | undefined
  let lastList: Array<RawLog> | undefined
  for (const log of logs) {
    if (log.blockHash !== block.hash) continue
    const txHash = log.transactionHash
    if (lastList !== undefined && txHash === lastHash) {
      lastList.push(log)
      continue
    }
    let list = byTx.get(txHash)
    if (list === undefined) byTx.set(txHash, (list = [log]))
    else list.push(log)
    lastHash = txHash
    lastList = list
  }
  const txs: Array<TxActivity> = []
  const emitters = new Set<string>()
  for (const tx of inOrder(block.transactions, txPosition)) {
    if (tx.status === "reverted") continue
    const txLogs = inOrder(byTx.get(tx.hash) ?? NO_LOGS, logPosition)
    const moves: Array<TokenMove> = []
    if (tx.value > 0n && tx.to !== null) moves.push({ token: WETH, from: tx.from, to: tx.to, amount: tx.value, logIndex: -1 })
    let orderOwners: Array<string> = NO_OWNERS
    let swapped = false
    for (const log of txLogs) {
      emitters.add(log.address)
      const move = moveOf(log)
      if (move !== undefined && move.amount > 0n && move.from !== move.to) moves.push(move)
      else if (!swapped && isSwapTopic(log.topics[0])) swapped = true
      if (log.address === COW_SETTLEMENT && log.topics[0] === TOPICS.cowTrade) {
        const owner = topicAddress(log.topics[1])
        if (owner !== undefined) (orderOwners === NO_OWNERS ? (orderOwners = [owner]) : orderOwners.push(owner))
      }
    }
    const swaps = swapped ? swapsOf(tx, txLogs, moves) : NO_SWAPS
    txs.push({ hash: tx.hash, index: tx.transactionIndex, from: tx.from, to: tx.to, value: tx.value, moves, swaps, orderOwners })
  }
  return { number: block.number, hash: block.hash, timestamp: block.timestamp, txs, emitters }
}

/** Whether the transaction swapped or moved a token (its own ETH value alone does not count). */
export const movedTokens = (tx: TxActivity) => {
  if (tx.swaps.length > 0) return true
  // A loop, not `some` with an arrow: this runs for every transaction of every block, once per rule that asks.
  for (const m of tx.moves) if (m.logIndex >= 0) return true
  return false
}

/** Every address that took part in a swap or a token movement in the block (see the header). */
export const participants = (activity: BlockActivity): Set<string> => {
  const out = new Set<string>()
  const add = (a: string | null) => {
    if (a !== null && a !== ZERO) out.add(a)
  }
  for (const tx of activity.txs) {
    if (!movedTokens(tx)) continue
    add(tx.from)
    if (tx.swaps.length > 0) add(tx.to)
    for (const m of tx.moves) {
      add(m.from)
      add(m.to)
    }
    for (const s of tx.swaps) {
      add(s.pool)
      add(s.payer)
      add(s.recipient)
    }
    for (const o of tx.orderOwners) add(o)
  }
  return out
}
