/**
 * A JSON-RPC 2.0 server on 127.0.0.1 (ephemeral port) that answers like an Ethereum node from the recorded
 * mainnet blocks 17173049–17173050 (ethereum-etl export, read in place), so viem runs for real against it.
 *
 * Methods: eth_chainId, net_version, eth_blockNumber, eth_getBlockByNumber / eth_getBlockByHash (hashes or
 * full transactions), eth_getTransactionByHash, eth_getTransactionReceipt, eth_getLogs (block range or hash,
 * address, topics with OR-lists and nulls), eth_call for symbol()/decimals() of tokens in the token-list fixture
 * (MKR answers bytes32, like the real contract; other addresses and selectors revert), balanceOf(holder) of any
 * token and eth_getBalance (0 unless `setBalance` gave one), eth_getCode, and batches.
 * Signatures are not in the recording: v/r/s are zero placeholders. Receipt blooms are zero.
 *
 * The recording holds no contract code either: eth_getCode answers a stand-in (`REPLAY_CONTRACT_CODE`) for every
 * address the recording shows to be a contract — it emitted a log; it was called with data and never sent a
 * transaction; or it sent a token it had received in a transaction someone else sent (an executor) — and "0x"
 * otherwise. `setCode` overrides an address (an EIP-7702 delegation, a contract the recording cannot show).
 *
 * The same port speaks JSON-RPC over WebSocket too (`wsUrl`), with `eth_subscribe("newHeads")`: every `setHead`
 * and `reorg` notifies the subscribers with the new head's header; `muteHeads` stops the notifications while the
 * subscriptions stay open (a silently dead subscription), `dropSockets` closes every WebSocket connection.
 *
 * Test controls: `setHead` (blocks above it are unknown), `failNext` (HTTP 429 / HTTP 500 / JSON-RPC -32005
 * for the next N matching requests), `reorg` (serve an alternative block N with a new hash and fewer
 * transactions, as the new head; block N+1 still names the old hash as parent, as after a reorg back), `branch`
 * (a longer alternative chain from block N: a reorg of any depth).
 *
 * `extend` appends synthetic blocks after the recording (test data, not mainnet): block `last + k` repeats the
 * transactions and logs of a recorded block (in turn) under new transaction and block hashes, chained by parent
 * hash, `extendSpacing` seconds apart from `extendFrom` (unix seconds; default: 12 s after the last recorded block).
 */
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { encodeAbiParameters, keccak256, pad, stringToHex } from "viem"
import { WebSocketServer, type WebSocket } from "ws"
import { readEtlDir, type EtlBlock, type EtlLog, type EtlTransaction } from "../../server/domains/chain/Etl"
import { fixturePath } from "./fixtures"

/** The stand-in code eth_getCode answers for a recorded contract (not its real bytecode). */
export const REPLAY_CONTRACT_CODE = "0x6080604052"

/** totalSupply() of every listed token, in whole tokens. */
export const REPLAY_TOTAL_SUPPLY = 1_000_000_000n

export type Fault = "http-429" | "http-500" | "rpc-limit"

export interface RpcReplayOptions {
  readonly dir?: string
  readonly tokenList?: string
  readonly head?: number
  /** Synthetic blocks after the recorded ones (see above). */
  readonly extend?: number
  /** Unix seconds of the first synthetic block. */
  readonly extendFrom?: number
  readonly extendSpacing?: number
}

export interface RpcReplayServer {
  readonly url: string
  /** The same server over WebSocket (ws://), with eth_subscribe("newHeads"). */
  readonly wsUrl: string
  /** Calls served per method (each call of a batch counts). */
  readonly calls: Map<string, number>
  readonly recorded: ReadonlyArray<number>
  setHead(number: number): void
  /** Stops (true) or resumes (false) newHeads notifications; subscriptions stay open. */
  muteHeads(muted: boolean): void
  /** Closes every WebSocket connection (their subscriptions end). */
  dropSockets(): void
  /** Serve debug_traceTransaction (callTracer results) for these transactions; none: the method does not exist. */
  setTraces(entries: ReadonlyArray<readonly [string, unknown]>): void
  failNext(fault: Fault, count?: number, method?: string): void
  /** Drops the faults not yet served. */
  clearFaults(): void
  /** Replaces block `number` by an alternative keeping only the transactions `keep` accepts; returns its hash. */
  reorg(number: number, keep?: (txHash: string) => boolean): string
  /**
   * Replaces blocks `from`…`from + length - 1` by an alternative branch (each block keeping only the transactions
   * `keep` accepts, parents chained through the branch) whose tip becomes the head; returns its hashes.
   */
  branch(from: number, length: number, keep?: (txHash: string) => boolean): Array<string>
  /** Every block number served (recorded and synthetic), ascending. */
  readonly numbers: ReadonlyArray<number>
  clearReorgs(): void
  /** eth_getCode answers `code` for `address` from now on. */
  setCode(address: string, code: string): void
  /** Answers symbol()/decimals() for a token from now on (a contract that stopped reverting, for re-read tests). */
  addToken(address: string, symbol: string, decimals: number): void
  /** balanceOf(holder) of `token` (or eth_getBalance for "eth") answers `amount` (base units) from now on. */
  setBalance(holder: string, token: string, amount: bigint): void
  close(): Promise<void>
}

interface View { readonly block: EtlBlock; readonly txs: ReadonlyArray<EtlTransaction>; readonly logs: ReadonlyArray<EtlLog> }
interface Call { readonly id?: unknown; readonly method?: string; readonly params?: ReadonlyArray<any> }
class RpcFault extends Error {
  constructor(readonly code: number, message: string) { super(message) }
}

const q = (v: bigint | number) => `0x${v.toString(16)}`
const ZERO = "0x0"
const ZERO32 = `0x${"0".repeat(64)}`
const BLOOM = `0x${"0".repeat(512)}`

const loadTokens = (file: string) => {
  const list = JSON.parse(readFileSync(file, "utf8")) as { tokens: Array<{ chainId: number; address: string; symbol: string; decimals: number }> }
  return new Map(list.tokens.filter((t) => t.chainId === 1).map((t) => [t.address.toLowerCase(), t]))
}

const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

/** The addresses the recording shows to be contracts (see the header), each with the stand-in code. */
const recordedContracts = (txs: ReadonlyArray<EtlTransaction>, logs: ReadonlyArray<EtlLog>) => {
  const senders = new Set(txs.map((t) => t.from_address))
  const contracts = new Set(logs.map((l) => l.address))
  for (const t of txs) if (t.to_address !== null && t.input.length > 2 && !senders.has(t.to_address)) contracts.add(t.to_address)
  const sender = new Map(txs.map((t) => [t.hash, t.from_address]))
  const received = new Set<string>()
  for (const l of [...logs].sort((a, b) => a.block_number - b.block_number || a.log_index - b.log_index)) {
    if (l.topics[0] !== TRANSFER || l.topics.length !== 3) continue
    const [from, to] = [`0x${l.topics[1]!.slice(26)}`, `0x${l.topics[2]!.slice(26)}`]
    if (received.has(`${l.transaction_hash}:${from}`) && sender.get(l.transaction_hash) !== from) contracts.add(from)
    received.add(`${l.transaction_hash}:${to}`)
  }
  return new Map([...contracts].map((a) => [a, REPLAY_CONTRACT_CODE]))
}

export const startRpcReplay = async (options: RpcReplayOptions = {}): Promise<RpcReplayServer> => {
  const data = readEtlDir(options.dir ?? fixturePath("eth-mainnet", "blocks_17173049_17173050"))
  const tokens = loadTokens(options.tokenList ?? fixturePath("token-list", "optimism.tokenlist.json"))
  const canonical = new Map<number, View>(data.blocks.map((block) => [block.number, {
    block,
    txs: data.transactions.filter((t) => t.block_number === block.number).sort((a, b) => a.transaction_index - b.transaction_index),
    logs: data.logs.filter((l) => l.block_number === block.number).sort((a, b) => a.log_index - b.log_index)
  }]))
  const recorded = [...canonical.keys()].sort((a, b) => a - b)
  const numbers = [...recorded]
  const rehash = (text: string) => keccak256(stringToHex(text))
  for (let k = 1; k <= (options.extend ?? 0); k++) {
    const parent = canonical.get(numbers.at(-1)!)!
    const model = canonical.get(recorded[(k - 1) % recorded.length]!)!
    const number = recorded.at(-1)! + k
    const hash = rehash(`synthetic:${number}`)
    const timestamp = (options.extendFrom ?? canonical.get(recorded.at(-1)!)!.block.timestamp + 12) + (k - 1) * (options.extendSpacing ?? 12)
    const txHash = (h: string) => rehash(`${h}:${number}`)
    canonical.set(number, {
      block: { ...model.block, number, hash, parent_hash: parent.block.hash, timestamp },
      txs: model.txs.map((t) => ({ ...t, hash: txHash(t.hash), block_hash: hash, block_number: number, block_timestamp: timestamp })),
      logs: model.logs.map((l) => ({ ...l, transaction_hash: txHash(l.transaction_hash), block_hash: hash, block_number: number }))
    })
    numbers.push(number)
  }
  const codes = recordedContracts(data.transactions, data.logs)
  const reorged = new Map<number, View>()
  let head = options.head ?? recorded.at(-1)!
  const faults: Array<{ fault: Fault; left: number; method?: string }> = []
  const calls = new Map<string, number>()

  const view = (n: number) => (n > head ? undefined : reorged.get(n) ?? canonical.get(n))
  const views = () => numbers.map(view).filter((v): v is View => v !== undefined)
  const blockTag = (tag: unknown, fallback = head): number =>
    tag === undefined || tag === "latest" || tag === "safe" || tag === "finalized" || tag === "pending"
      ? fallback : tag === "earliest" ? 0 : Number(tag)

  const rpcTx = (t: EtlTransaction) => {
    const type = t.transaction_type ?? 0
    return {
      blockHash: t.block_hash, blockNumber: q(t.block_number), from: t.from_address, gas: q(t.gas),
      gasPrice: q(t.gas_price ?? 0n), hash: t.hash, input: t.input, nonce: q(t.nonce), to: t.to_address,
      transactionIndex: q(t.transaction_index), value: q(t.value), type: q(type), chainId: "0x1",
      v: type === 0 ? "0x25" : ZERO, r: ZERO, s: ZERO,
      ...(type === 0 ? {} : { yParity: ZERO, accessList: [] }),
      ...(type >= 2 ? { maxFeePerGas: q(t.max_fee_per_gas ?? 0n), maxPriorityFeePerGas: q(t.max_priority_fee_per_gas ?? 0n) } : {})
    }
  }
  const rpcLog = (l: EtlLog) => ({
    address: l.address, topics: l.topics, data: l.data, blockNumber: q(l.block_number), blockHash: l.block_hash,
    transactionHash: l.transaction_hash, transactionIndex: q(l.transaction_index), logIndex: q(l.log_index), removed: false
  })
  const rpcBlock = (v: View, full: boolean) => {
    const b = v.block
    return {
      number: q(b.number), hash: b.hash, parentHash: b.parent_hash, nonce: b.nonce, sha3Uncles: b.sha3_uncles,
      logsBloom: b.logs_bloom, transactionsRoot: b.transactions_root, stateRoot: b.state_root,
      receiptsRoot: b.receipts_root, miner: b.miner, difficulty: q(b.difficulty),
      ...(b.total_difficulty == null ? {} : { totalDifficulty: q(b.total_difficulty) }),
      extraData: b.extra_data, size: q(b.size), gasLimit: q(b.gas_limit), gasUsed: q(b.gas_used),
      timestamp: q(b.timestamp), mixHash: ZERO32, uncles: [],
      ...(b.base_fee_per_gas == null ? {} : { baseFeePerGas: q(b.base_fee_per_gas) }),
      ...(b.withdrawals_root == null ? {} : { withdrawalsRoot: b.withdrawals_root }),
      withdrawals: (b.withdrawals ?? []).map((w) => ({ index: q(w.index), validatorIndex: q(w.validator_index), address: w.address, amount: q(w.amount) })),
      transactions: full ? v.txs.map(rpcTx) : v.txs.map((t) => t.hash)
    }
  }
  const findTx = (hash: string) => {
    for (const v of views()) {
      const tx = v.txs.find((t) => t.hash === hash.toLowerCase())
      if (tx !== undefined) return { v, tx }
    }
    return undefined
  }
  const receipt = (hash: string) => {
    const found = findTx(hash)
    if (found === undefined) return null
    const { v, tx } = found
    return {
      transactionHash: tx.hash, transactionIndex: q(tx.transaction_index), blockHash: tx.block_hash,
      blockNumber: q(tx.block_number), from: tx.from_address, to: tx.to_address,
      cumulativeGasUsed: q(tx.receipt_cumulative_gas_used ?? 0n), gasUsed: q(tx.receipt_gas_used ?? 0n),
      effectiveGasPrice: q(tx.receipt_effective_gas_price ?? 0n), contractAddress: tx.receipt_contract_address ?? null,
      logs: v.logs.filter((l) => l.transaction_hash === tx.hash).map(rpcLog), logsBloom: BLOOM,
      status: q(tx.receipt_status ?? 1), type: q(tx.transaction_type ?? 0)
    }
  }
  const matches = (value: string, want: unknown) =>
    want == null || (Array.isArray(want) ? want.map((w) => String(w).toLowerCase()).includes(value) : String(want).toLowerCase() === value)
  const getLogs = (filter: { fromBlock?: string; toBlock?: string; blockHash?: string; address?: unknown; topics?: ReadonlyArray<unknown> }) => {
    const from = blockTag(filter.fromBlock)
    const to = blockTag(filter.toBlock)
    return views()
      .filter((v) => (filter.blockHash ? v.block.hash === filter.blockHash.toLowerCase() : v.block.number >= from && v.block.number <= to))
      .flatMap((v) => v.logs)
      .filter((l) => matches(l.address, filter.address) && (filter.topics ?? []).every((t, i) => l.topics[i] !== undefined ? matches(l.topics[i]!, t) : t == null))
      .map(rpcLog)
  }
  const balances = new Map<string, bigint>()
  const ethCall = (request: { to?: string; data?: string; input?: string }) => {
    const token = tokens.get(String(request.to ?? "").toLowerCase())
    const input = String(request.data ?? request.input ?? "")
    const selector = input.slice(0, 10)
    if (selector === "0x70a08231") {
      const holder = `0x${input.slice(34, 74).toLowerCase()}`
      return encodeAbiParameters([{ type: "uint256" }], [balances.get(`${String(request.to).toLowerCase()}:${holder}`) ?? 0n])
    }
    if (token !== undefined && selector === "0x95d89b41") {
      return token.symbol === "MKR" ? pad(stringToHex("MKR"), { dir: "right" }) : encodeAbiParameters([{ type: "string" }], [token.symbol])
    }
    if (token !== undefined && selector === "0x313ce567") return encodeAbiParameters([{ type: "uint8" }], [token.decimals])
    if (token !== undefined && selector === "0x18160ddd") return encodeAbiParameters([{ type: "uint256" }], [REPLAY_TOTAL_SUPPLY * 10n ** BigInt(token.decimals)])
    throw new RpcFault(-32000, "execution reverted")
  }

  const answer = (c: Call): unknown => {
    const p = c.params ?? []
    switch (c.method) {
      case "eth_chainId": return "0x1"
      case "net_version": return "1"
      case "eth_blockNumber": return q(head)
      case "eth_getBlockByNumber": { const v = view(blockTag(p[0])); return v === undefined ? null : rpcBlock(v, p[1] === true) }
      case "eth_getBlockByHash": { const v = views().find((x) => x.block.hash === String(p[0]).toLowerCase()); return v === undefined ? null : rpcBlock(v, p[1] === true) }
      case "eth_getTransactionByHash": { const f = findTx(String(p[0])); return f === undefined ? null : rpcTx(f.tx) }
      case "eth_getTransactionReceipt": return receipt(String(p[0]))
      case "eth_getLogs": return getLogs(p[0] ?? {})
      case "eth_call": return ethCall(p[0] ?? {})
      case "eth_getCode": return codes.get(String(p[0]).toLowerCase()) ?? "0x"
      case "eth_getBalance": return q(balances.get(`eth:${String(p[0]).toLowerCase()}`) ?? 0n)
      // geth's debug_traceTransaction with the callTracer, only when the test gave traces (a node without them
      // answers "method not found", as the default below).
      case "debug_traceTransaction": {
        if (traces.size === 0) throw new RpcFault(-32601, "the method debug_traceTransaction does not exist/is not available")
        const trace = traces.get(String(p[0]).toLowerCase())
        if (trace === undefined) throw new RpcFault(-32000, `transaction ${String(p[0])} not found`)
        return trace
      }
      default: throw new RpcFault(-32601, `the method ${String(c.method)} does not exist/is not available`)
    }
  }
  const traces = new Map<string, unknown>()
  const takeFault = (methods: ReadonlyArray<string>, kinds: ReadonlyArray<Fault>) => {
    const i = faults.findIndex((f) => kinds.includes(f.fault) && (f.method === undefined || methods.includes(f.method)))
    if (i < 0) return undefined
    const f = faults[i]!
    if (--f.left <= 0) faults.splice(i, 1)
    return f.fault
  }
  const respond = (c: Call) => {
    const method = String(c.method)
    calls.set(method, (calls.get(method) ?? 0) + 1)
    if (takeFault([method], ["rpc-limit"]) !== undefined) {
      return { jsonrpc: "2.0", id: c.id ?? null, error: { code: -32005, message: "limit exceeded" } }
    }
    try {
      return { jsonrpc: "2.0", id: c.id ?? null, result: answer(c) }
    } catch (e) {
      const code = e instanceof RpcFault ? e.code : -32603
      return { jsonrpc: "2.0", id: c.id ?? null, error: { code, message: e instanceof Error ? e.message : String(e) } }
    }
  }
  const handle = (body: string, res: ServerResponse) => {
    let parsed: unknown
    try { parsed = JSON.parse(body) } catch {
      return send(res, 200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } })
    }
    const batch = Array.isArray(parsed) ? (parsed as Array<Call>) : [parsed as Call]
    const http = takeFault(batch.map((c) => String(c.method)), ["http-429", "http-500"])
    if (http !== undefined) return send(res, http === "http-429" ? 429 : 500, http === "http-429" ? "Too Many Requests" : "Internal Server Error")
    const out = batch.map(respond)
    send(res, 200, Array.isArray(parsed) ? out : out[0])
  }
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json" })
    res.end(typeof body === "string" ? body : JSON.stringify(body))
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => handle(Buffer.concat(chunks).toString("utf8"), res))
  })
  // JSON-RPC over WebSocket on the same port: requests as over HTTP, plus newHeads subscriptions.
  const sockets = new WebSocketServer({ server })
  const subscriptions = new Map<string, WebSocket>()
  let subscriptionIds = 0
  let muted = false
  sockets.on("connection", (socket) => {
    socket.on("message", (data) => {
      let parsed: unknown
      try { parsed = JSON.parse(String(data)) } catch {
        return socket.send(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }))
      }
      const batch = Array.isArray(parsed) ? (parsed as Array<Call>) : [parsed as Call]
      const out = batch.map((c) => {
        if (c.method === "eth_subscribe" || c.method === "eth_unsubscribe") calls.set(c.method, (calls.get(c.method) ?? 0) + 1)
        if (c.method === "eth_subscribe") {
          if (c.params?.[0] !== "newHeads") return { jsonrpc: "2.0", id: c.id ?? null, error: { code: -32602, message: "only newHeads is served" } }
          const id = q(++subscriptionIds)
          subscriptions.set(id, socket)
          return { jsonrpc: "2.0", id: c.id ?? null, result: id }
        }
        if (c.method === "eth_unsubscribe") return { jsonrpc: "2.0", id: c.id ?? null, result: subscriptions.delete(String(c.params?.[0])) }
        return respond(c)
      })
      socket.send(JSON.stringify(Array.isArray(parsed) ? out : out[0]))
    })
    socket.on("close", () => { for (const [id, s] of subscriptions) if (s === socket) subscriptions.delete(id) })
  })
  const notifyHead = () => {
    const v = view(head)
    if (muted || v === undefined) return
    const header = rpcBlock(v, false)
    for (const [id, socket] of subscriptions) socket.send(JSON.stringify({ jsonrpc: "2.0", method: "eth_subscription", params: { subscription: id, result: header } }))
  }

  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  const { port } = server.address() as AddressInfo
  let reorgs = 0

  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    calls,
    recorded,
    numbers,
    setHead: (n) => {
      head = n
      notifyHead()
    },
    muteHeads: (m) => { muted = m },
    dropSockets: () => { for (const socket of sockets.clients) socket.terminate() },
    setTraces: (entries: ReadonlyArray<readonly [string, unknown]>) => {
      traces.clear()
      for (const [hash, trace] of entries) traces.set(hash.toLowerCase(), trace)
    },
    failNext: (fault, count = 1, method) => { faults.push({ fault, left: count, ...(method === undefined ? {} : { method }) }) },
    reorg: (n, keep = () => false) => {
      const base = canonical.get(n)
      if (base === undefined) throw new Error(`block ${n} is not recorded`)
      const hash = keccak256(stringToHex(`reorg:${++reorgs}:${base.block.hash}`))
      const txs = base.txs.filter((t) => keep(t.hash)).map((t) => ({ ...t, block_hash: hash }))
      const kept = new Set(txs.map((t) => t.hash))
      const logs = base.logs.filter((l) => kept.has(l.transaction_hash)).map((l) => ({ ...l, block_hash: hash }))
      reorged.set(n, { block: { ...base.block, hash, transaction_count: txs.length }, txs, logs })
      head = n
      notifyHead()
      return hash
    },
    branch: (from, length, keep = () => false) => {
      const hashes: Array<string> = []
      for (let n = from; n < from + length; n++) {
        const base = canonical.get(n)
        if (base === undefined) throw new Error(`block ${n} is not served`)
        const hash = rehash(`branch:${++reorgs}:${base.block.hash}`)
        const txs = base.txs.filter((t) => keep(t.hash)).map((t) => ({ ...t, block_hash: hash }))
        const kept = new Set(txs.map((t) => t.hash))
        const logs = base.logs.filter((l) => kept.has(l.transaction_hash)).map((l) => ({ ...l, block_hash: hash }))
        const parent = n === from ? base.block.parent_hash : hashes.at(-1)!
        reorged.set(n, { block: { ...base.block, hash, parent_hash: parent, transaction_count: txs.length }, txs, logs })
        hashes.push(hash)
      }
      head = from + length - 1
      notifyHead()
      return hashes
    },
    clearFaults: () => { faults.length = 0 },
    clearReorgs: () => reorged.clear(),
    setCode: (address, code) => { codes.set(address.toLowerCase(), code) },
    setBalance: (holder, token, amount) => { balances.set(`${token.toLowerCase()}:${holder.toLowerCase()}`, amount) },
    addToken: (address, symbol, decimals) => { tokens.set(address.toLowerCase(), { chainId: 1, address, symbol, decimals }) },
    close: () => new Promise<void>((ok) => {
      for (const socket of sockets.clients) socket.terminate()
      sockets.close()
      server.closeAllConnections()
      server.close(() => ok())
    })
  }
}
