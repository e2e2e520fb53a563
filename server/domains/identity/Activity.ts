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
import type { ChainBlock, RawLog } from "../chain/Types"
import { isSwapTopic, swapsOf, topicAddress, WETH } from "./Swaps"
import type { BlockActivity, TokenMove, TxActivity } from "./Types"

export const TOPIC_TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
const TOPIC_DEPOSIT = "0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c"
const TOPIC_WITHDRAWAL = "0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65"
/** CoW Protocol's GPv2Settlement and its `Trade(address indexed owner, …)` event. */
export const COW_SETTLEMENT = "0x9008d19f58aabd9ed0d60971565aa8510560ab41"
const TOPIC_COW_TRADE = "0xa07a543ab8a018198e99ca0184c93fe9050a79400a0a723441f84de1d972cc17"
const ZERO = "0x0000000000000000000000000000000000000000"

/** Every topic the identity rules read (the chain source asks its node for these). */
export const IDENTITY_TOPICS: ReadonlyArray<string> = [TOPIC_TRANSFER, TOPIC_DEPOSIT, TOPIC_WITHDRAWAL, TOPIC_COW_TRADE]

const WORD = /^0x[0-9a-fA-F]{64}/

const moveOf = (log: RawLog): TokenMove | undefined => {
  const topic0 = log.topics[0]
  if (topic0 === TOPIC_TRANSFER && log.topics.length === 3 && WORD.test(log.data)) {
    const from = topicAddress(log.topics[1])
    const to = topicAddress(log.topics[2])
    if (from === undefined || to === undefined) return undefined
    return { token: log.address, from, to, amount: BigInt(log.data.slice(0, 66)), logIndex: log.logIndex }
  }
  if (log.address === WETH && log.topics.length === 2 && WORD.test(log.data)) {
    const who = topicAddress(log.topics[1])
    if (who === undefined) return undefined
    const amount = BigInt(log.data.slice(0, 66))
    if (topic0 === TOPIC_DEPOSIT) return { token: WETH, from: null, to: who, amount, logIndex: log.logIndex }
    if (topic0 === TOPIC_WITHDRAWAL) return { token: WETH, from: who, to: null, amount, logIndex: log.logIndex }
  }
  return undefined
}

/** Reads a block's activity. `logs` may hold other blocks' logs and topics the rules do not read: both are ignored. */
export const readActivity = (block: ChainBlock, logs: ReadonlyArray<RawLog>): BlockActivity => {
  const byTx = new Map<string, Array<RawLog>>()
  for (const log of logs) {
    if (log.blockHash !== block.hash) continue
    const list = byTx.get(log.transactionHash)
    if (list === undefined) byTx.set(log.transactionHash, [log])
    else list.push(log)
  }
  const txs: Array<TxActivity> = []
  for (const tx of [...block.transactions].sort((a, b) => a.transactionIndex - b.transactionIndex)) {
    if (tx.status === "reverted") continue
    const txLogs = (byTx.get(tx.hash) ?? []).sort((a, b) => a.logIndex - b.logIndex)
    const moves: Array<TokenMove> = []
    if (tx.value > 0n && tx.to !== null) moves.push({ token: WETH, from: tx.from, to: tx.to, amount: tx.value, logIndex: -1 })
    const emitters = new Set<string>()
    const orderOwners: Array<string> = []
    for (const log of txLogs) {
      emitters.add(log.address)
      const move = moveOf(log)
      if (move !== undefined && move.amount > 0n && move.from !== move.to) moves.push(move)
      if (log.address === COW_SETTLEMENT && log.topics[0] === TOPIC_COW_TRADE) {
        const owner = topicAddress(log.topics[1])
        if (owner !== undefined) orderOwners.push(owner)
      }
    }
    const swaps = txLogs.some((l) => isSwapTopic(l.topics[0])) ? swapsOf({ hash: tx.hash, index: tx.transactionIndex }, txLogs, moves) : []
    txs.push({ hash: tx.hash, index: tx.transactionIndex, from: tx.from, to: tx.to, value: tx.value, moves, swaps, emitters, orderOwners })
  }
  return { number: block.number, hash: block.hash, timestamp: block.timestamp, txs }
}

/** Whether the transaction swapped or moved a token (its own ETH value alone does not count). */
export const movedTokens = (tx: TxActivity) => tx.swaps.length > 0 || tx.moves.some((m) => m.logIndex >= 0)

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
