/**
 * WebSocket test client (the `ws` library) for the hub's protocol, and builders for bus messages the hub relays.
 * Frames are kept in arrival order; `waitFor` finds one without consuming it, so a test can assert on the whole
 * sequence afterwards.
 */
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import WebSocket from "ws"
import { Bus } from "../../server/platform/infra/Bus"
import { STREAMS, type ChainTxMessage } from "../../schema/streams"
import type { TestApp } from "./harness"

export type Frame = Record<string, any>

export interface TestSocket {
  readonly ws: WebSocket
  readonly frames: Array<Frame>
  readonly closed: Promise<{ code: number; reason: string }>
  readonly isClosed: () => boolean
  readonly send: (message: unknown) => void
  /** The first frame (already received or still to come) matching `match`. */
  readonly waitFor: (match: (f: Frame) => boolean, timeoutMs?: number) => Promise<Frame>
  /** Data frames of a topic, in arrival order. */
  readonly data: (topic: string) => Array<Frame>
  readonly close: () => Promise<void>
}

export interface OpenOptions {
  readonly headers?: Record<string, string>
  /** Answer the server's pings (default true, as browsers do). */
  readonly autoPong?: boolean
  readonly protocols?: ReadonlyArray<string>
  readonly query?: string
  /** Another WebSocket path of the app (default the hub's `/ws`). */
  readonly path?: string
}

const brief = (frames: ReadonlyArray<Frame>) => `(${frames.length}) ` + frames.slice(-3).map((f) => JSON.stringify(f).slice(0, 200)).join(" | ")

export const wsUrl = (app: TestApp, query = "", path = "/ws") => `ws://127.0.0.1:${app.port}${path}${query ? `?${query}` : ""}`

export const openSocket = (app: TestApp, options: OpenOptions = {}): Promise<TestSocket> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(app, options.query, options.path), options.protocols ? [...options.protocols] : [], { headers: options.headers ?? {}, autoPong: options.autoPong ?? true })
    const frames: Array<Frame> = []
    const listeners = new Set<() => void>()
    let isClosed = false
    let closedWith = ""
    let lastError = ""
    const closed = new Promise<{ code: number; reason: string }>((done) => {
      ws.on("close", (code, reason) => {
        isClosed = true
        closedWith = `${code}${reason.length > 0 ? ` ${reason.toString()}` : ""}${lastError ? `, after the client's error: ${lastError}` : ""}`
        done({ code, reason: reason.toString() })
        for (const l of listeners) l()
      })
    })
    ws.on("message", (raw) => {
      frames.push(JSON.parse(raw.toString()))
      for (const l of listeners) l()
    })
    ws.once("error", reject)
    ws.once("open", () => {
      ws.off("error", reject)
      ws.on("error", (e) => (lastError = `${(e as NodeJS.ErrnoException).code ?? ""} ${e.message}`.trim()))
      resolve({
        ws,
        frames,
        closed,
        isClosed: () => isClosed,
        send: (message) => ws.send(typeof message === "string" ? message : JSON.stringify(message)),
        data: (topic) => frames.filter((f) => f.topic === topic && typeof f.seq === "number" && f.type === undefined),
        waitFor: (match, timeoutMs = 5_000) =>
          new Promise<Frame>((found, fail) => {
            let scanned = 0
            const check = () => {
              let hit: Frame | undefined
              for (; scanned < frames.length && !hit; scanned++) if (match(frames[scanned]!)) hit = frames[scanned]
              if (hit) {
                listeners.delete(check)
                clearTimeout(timer)
                found(hit)
              } else if (isClosed) {
                listeners.delete(check)
                clearTimeout(timer)
                fail(new Error(`socket closed (${closedWith}) before the frame came; last frames ${brief(frames)}`))
              }
            }
            const timer = setTimeout(() => {
              listeners.delete(check)
              fail(new Error(`no such frame within ${timeoutMs} ms; last frames ${brief(frames)}`))
            }, timeoutMs)
            listeners.add(check)
            check()
          }),
        close: async () => {
          if (!isClosed) ws.close()
          await closed
        }
      })
    })
  })

/** A whale transaction as the block listener publishes it on `chain.tx`. */
export const chainTx = (n: number, over: Partial<ChainTxMessage> = {}): ChainTxMessage => ({
  messageId: `test-${n}-${randomBytes(4).toString("hex")}`,
  id: n,
  tx_hash: `0x${n.toString(16).padStart(64, "0")}`,
  log_index: 0,
  block: 19_000_000 + n,
  ts: new Date().toISOString(),
  wallet: "0x28c6c06298d514db089934071355e5743bf21d60",
  wallet_label: "Test whale",
  token: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
  symbol: "WETH",
  category: "dex_buy",
  amount: "12.5",
  usd: 40_000 + n,
  price_usd: 3_200,
  counter_token: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
  counter_symbol: "USDC",
  venue: "Uniswap V3",
  source: "demo",
  ...over
})

/** Publishes payloads on a stream of the app's bus; returns their entry ids. */
export const publish = (app: TestApp, stream: string, payloads: ReadonlyArray<Record<string, unknown>>) =>
  app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.publishMany(stream, payloads)))

export const publishTrades = (app: TestApp, trades: ReadonlyArray<ChainTxMessage>) => publish(app, STREAMS.chainTx, trades)
