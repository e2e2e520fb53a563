/**
 * The `rpc` chain source: viem's public client over `http(url)`, or `webSocket(url)` for ws:// and wss:// URLs.
 *
 * viem's own retries are off (`retryCount: 0` by default): back-off belongs to the caller, which sees a tagged
 * `RpcError` with `retryable` (rate limits — HTTP 429 or JSON-RPC -32005 —, 5xx, timeouts, network failures).
 * HTTP requests issued together (a token's symbol and decimals) go out as one JSON-RPC batch.
 */
import { Effect, Layer } from "effect"
import {
  BaseError, BlockNotFoundError, HttpRequestError, SocketClosedError, TimeoutError, TransactionReceiptNotFoundError, WebSocketRequestError,
  createPublicClient, decodeAbiParameters, erc20Abi, hexToString, http, webSocket, type Hex, type Log
} from "viem"
import { DECODED_EVENTS, SWAP_EVENTS } from "./LogTopics"
import {
  BlockNotFound, ChainSource, RpcError, UNKNOWN_TOKEN, cleanSymbol, type ChainSourceShape, type TokenMeta
} from "./Source"
import { fromCallTracer, fromParityTraces, isMethodMissing, type TraceMethod, type TraceMode } from "./Traces"
import { ChainBlock, type InternalTransfer, type RawLog } from "./Types"

export interface RpcSourceOptions {
  readonly url: string
  readonly timeoutMs?: number
  /** viem transport retries (default 0: let the caller back off). */
  readonly retryCount?: number
  /** JSON-RPC batching over HTTP (default true). */
  readonly batch?: boolean
  /** Call traces for internal ETH transfers (CHAIN_TRACES; default auto: probed once). */
  readonly traces?: TraceMode
}

/** What `getLogs` asks the node for: the decoded events and the swap and settlement events (LogTopics.ts). */
const READ_EVENTS = [...DECODED_EVENTS, ...SWAP_EVENTS]
const SYMBOL_SELECTOR = "0x95d89b41"
const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504])
const RETRYABLE_CODES = new Set([-32005, -32007, -32603, 429])

/** Maps whatever viem threw to a tagged error that says whether trying again can help. */
export const toRpcError = (method: string, error: unknown): RpcError => {
  if (!(error instanceof BaseError)) return new RpcError({ method, message: String(error), retryable: false })
  const http = error.walk((e) => e instanceof HttpRequestError) as HttpRequestError | null
  const timedOut = error.walk((e) => e instanceof TimeoutError) !== null
  // A WebSocket closed or failing mid-request: viem reconnects, so asking again can help.
  const socketDown = error.walk((e) => e instanceof SocketClosedError || e instanceof WebSocketRequestError) !== null
  const coded = error.walk((e) => typeof (e as { code?: unknown }).code === "number") as { code: number } | null
  const status = http?.status
  const code = coded?.code
  const retryable = timedOut || socketDown ||
    (http !== null && (status === undefined || RETRYABLE_STATUS.has(status))) ||
    (code !== undefined && RETRYABLE_CODES.has(code)) ||
    /header not found|too many requests|rate limit/i.test(error.details ?? "")
  return new RpcError({
    method, message: error.shortMessage, retryable,
    ...(status === undefined ? {} : { status }), ...(code === undefined ? {} : { code })
  })
}

const lower = (a: string) => a.toLowerCase()

const toRawLog = (log: Log): RawLog | undefined =>
  log.blockNumber === null || log.blockHash === null || log.transactionHash === null || log.logIndex === null
    ? undefined
    : {
      address: lower(log.address), topics: log.topics.map(lower), data: log.data, logIndex: log.logIndex,
      transactionHash: log.transactionHash, blockNumber: Number(log.blockNumber), blockHash: log.blockHash
    }

/** symbol() answers a string, or bytes32 for old tokens such as MKR; anything else is unknown. */
const decodeSymbol = (data: Hex | undefined): string => {
  if (data === undefined || data === "0x") return UNKNOWN_TOKEN.symbol
  try {
    return cleanSymbol(decodeAbiParameters([{ type: "string" }], data)[0])
  } catch {
    return data.length === 66 ? cleanSymbol(hexToString(data, { size: 32 })) : UNKNOWN_TOKEN.symbol
  }
}

export const makeRpcSource = (options: RpcSourceOptions) =>
  Effect.gen(function* () {
    const { url, timeoutMs = 10_000, retryCount = 0, batch = true } = options
    const ws = /^wss?:\/\//i.test(url)
    const transport = ws
      ? webSocket(url, { timeout: timeoutMs, retryCount, reconnect: true })
      : http(url, { timeout: timeoutMs, retryCount, batch })
    const client = createPublicClient({ transport })
    if (ws) {
      const socket = client.transport as { getRpcClient?: () => Promise<{ close: () => void }> }
      yield* Effect.addFinalizer(() =>
        Effect.tryPromise(async () => (await socket.getRpcClient?.())?.close()).pipe(Effect.ignore)
      )
    }

    const call = <A>(method: string, run: () => Promise<A>) =>
      Effect.tryPromise({ try: run, catch: (e) => toRpcError(method, e) })

    /** An eth_call whose non-retryable failure (revert, bad answer) is just "no answer". */
    const readOrNothing = <A>(method: string, run: () => Promise<A>) =>
      call(method, run).pipe(
        Effect.map((a): A | undefined => a),
        Effect.catchIf((e) => !e.retryable, () => Effect.succeed(undefined))
      )

    const getBlock = (number: number) =>
      Effect.tryPromise({
        try: () => client.getBlock({ blockNumber: BigInt(number), includeTransactions: true }),
        catch: (e) => (e instanceof BlockNotFoundError ? new BlockNotFound({ number }) : toRpcError("eth_getBlockByNumber", e))
      }).pipe(
        Effect.flatMap((block) => {
          const parsed = ChainBlock.safeParse({
            number: Number(block.number), hash: block.hash, parentHash: block.parentHash,
            timestamp: Number(block.timestamp),
            transactions: block.transactions.map((tx) => ({
              hash: tx.hash, blockNumber: Number(block.number), blockHash: block.hash, timestamp: Number(block.timestamp),
              from: lower(tx.from), to: tx.to === null ? null : lower(tx.to), value: tx.value,
              input: tx.input.slice(0, 10).toLowerCase(), transactionIndex: tx.transactionIndex
            }))
          })
          return parsed.success
            ? Effect.succeed(parsed.data)
            : Effect.fail(new RpcError({ method: "eth_getBlockByNumber", message: `malformed block ${number}`, retryable: false }))
        })
      )

    /** The trace method the node answers (probed on first use in `auto`), null when it has none. */
    let traceMethod: TraceMethod | null | undefined = options.traces === "off" ? null : undefined
    const traceWith = (method: TraceMethod, hash: string) =>
      Effect.tryPromise({
        try: () => method === "debug_traceTransaction"
          ? client.request({ method: "debug_traceTransaction", params: [hash as Hex, { tracer: "callTracer" }] } as never)
          : client.request({ method: "trace_transaction", params: [hash as Hex] } as never),
        catch: (e) => toRpcError(method, e)
      }).pipe(Effect.map((answer): Array<InternalTransfer> => (method === "debug_traceTransaction" ? fromCallTracer(answer) : fromParityTraces(answer))))
    const missing = (e: RpcError) => !e.retryable && isMethodMissing({ ...(e.code === undefined ? {} : { code: e.code }), message: e.message })
    const internalTransfers = (hash: string): Effect.Effect<ReadonlyArray<InternalTransfer> | null, RpcError> =>
      Effect.suspend(() => {
        if (traceMethod === null) return Effect.succeed(null)
        if (traceMethod !== undefined) return traceWith(traceMethod, hash)
        const probe = (method: TraceMethod, next: Effect.Effect<ReadonlyArray<InternalTransfer> | null, RpcError>) =>
          traceWith(method, hash).pipe(
            Effect.tap(() => {
              const first = traceMethod !== method
              traceMethod = method
              return first ? Effect.logInfo(`call traces: using ${method}`) : Effect.void
            }),
            Effect.catchIf(missing, () => next)
          )
        const none = Effect.suspend(() => {
          // Probes run concurrently for the transactions of a block: only the first to conclude says so.
          const first = traceMethod === undefined
          traceMethod = null
          if (!first && options.traces !== "on") return Effect.succeed(null)
          return options.traces === "on"
            ? Effect.fail(new RpcError({ method: "debug_traceTransaction", message: "CHAIN_TRACES=on but the node offers neither debug_traceTransaction nor trace_transaction", retryable: false }))
            : Effect.logInfo("call traces: the node offers none; native ETH paid through contracts is read from WETH Withdrawal events").pipe(Effect.as(null))
        })
        return probe("debug_traceTransaction", probe("trace_transaction", none))
      })

    const source: ChainSourceShape = {
      ...(options.traces === "off" ? {} : { internalTransfers }),
      kind: "rpc",
      latestBlockNumber: call("eth_blockNumber", () => client.getBlockNumber({ cacheTime: 0 })).pipe(Effect.map(Number)),
      getBlock,
      getLogs: ({ fromBlock, toBlock }) =>
        call("eth_getLogs", () =>
          client.getLogs({ fromBlock: BigInt(fromBlock), toBlock: BigInt(toBlock), events: READ_EVENTS, strict: true })
        ).pipe(
          Effect.map((logs) =>
            logs.flatMap((l) => (l.removed ? [] : [toRawLog(l)].filter((x): x is RawLog => x !== undefined)))
              .sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex)
          )
        ),
      getReceipt: (hash) =>
        Effect.tryPromise({
          try: () => client.getTransactionReceipt({ hash: hash as Hex }),
          catch: (e) => (e instanceof TransactionReceiptNotFoundError ? null : toRpcError("eth_getTransactionReceipt", e))
        }).pipe(
          Effect.map((r) => ({
            status: r.status,
            blockHash: r.blockHash,
            logs: r.logs.flatMap((l) => [toRawLog(l)].filter((x): x is RawLog => x !== undefined))
          })),
          Effect.catchIf((e): e is null => e === null, () => Effect.succeed(null))
        ),
      ...(ws
        ? {
          watchHeads: (onHead: (blockNumber: number) => void) =>
            Effect.async<never, RpcError>((resume) => {
              // On a WebSocket transport viem subscribes with eth_subscribe("newHeads") (no polling); a closed
              // socket or a refused subscription ends this watch.
              const unwatch = client.watchBlockNumber({
                emitOnBegin: false, emitMissed: false,
                onBlockNumber: (n) => onHead(Number(n)),
                onError: (e) => resume(Effect.fail(toRpcError("eth_subscribe", e)))
              })
              return Effect.sync(unwatch)
            })
        }
        : {}),
      getCodes: (addresses) =>
        call("eth_getCode", () => Promise.all(addresses.map((address) =>
          client.getCode({ address: address as Hex }).then((code) => (code ?? "0x").toLowerCase(), () => null)))),
      getBalances: (holders, tokens) =>
        call("eth_getBalance", () => Promise.all(holders.map(async (holder) => {
          const [eth, ...held] = await Promise.all([
            client.getBalance({ address: holder as Hex }).then((b) => b, () => null),
            ...tokens.map((token) => client.readContract({ address: token as Hex, abi: erc20Abi, functionName: "balanceOf", args: [holder as Hex] })
              .then((b) => (typeof b === "bigint" ? b : null), () => null))
          ])
          return { eth: eth ?? null, tokens: held }
        }))),
      readTotalSupply: (address) =>
        readOrNothing("eth_call", () => client.readContract({ address: address as Hex, abi: erc20Abi, functionName: "totalSupply" })).pipe(
          Effect.map((supply) => (typeof supply === "bigint" && supply >= 0n ? supply : null))),
      readTokenMeta: (address) =>
        Effect.all([
          readOrNothing("eth_call", () => client.call({ to: address as Hex, data: SYMBOL_SELECTOR })),
          readOrNothing("eth_call", () =>
            client.readContract({ address: address as Hex, abi: erc20Abi, functionName: "decimals" }))
        ], { concurrency: 2 }).pipe(
          Effect.map(([symbol, decimals]): TokenMeta => ({
            symbol: decodeSymbol(symbol?.data),
            decimals: decimals !== undefined && Number.isInteger(decimals) && decimals <= 255 ? decimals : null
          }))
        )
    }
    return source
  })

/** The `rpc` source as the app's `ChainSource`. */
export const RpcSourceLive = (options: RpcSourceOptions) => Layer.scoped(ChainSource, makeRpcSource(options))
