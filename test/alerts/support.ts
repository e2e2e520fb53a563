/** Helpers of the alerts suites: a local webhook receiver, crafted records, and waiting for the actors to settle. */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { STREAMS } from "../../schema/streams"
import { Bus } from "../../server/platform/infra/Bus"
import type { TestApp } from "../support/harness"

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

/** A webhook receiver on 127.0.0.1; `answer` decides each status (200 by default). */
export const startReceiver = async () => {
  const received: Array<Received> = []
  let answer: (n: number) => number = () => 200
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() })
      res.writeHead(answer(received.length))
      res.end()
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/whale`,
    received,
    setAnswer: (f: (n: number) => number) => {
      answer = f
    },
    close: () => new Promise<void>((r) => server.close(() => r()))
  }
}

/** The alert events of a webhook message body: itself, or the events of an `alert.batch`. */
export const webhookEvents = (body: string): Array<{ type: string; data: Record<string, any> }> => {
  const parsed = JSON.parse(body) as { type: string; data: Record<string, any> }
  return parsed.type === "alert.batch" ? (parsed.data.events as Array<{ type: string; data: Record<string, any> }>) : [parsed]
}

const hex = (bytes: number) => "0x" + randomBytes(bytes).toString("hex")

/** A crafted `process-tx` body: a fresh tx hash, now as block time. */
export const record = (over: Record<string, unknown> = {}) => ({
  tx_hash: hex(32), log_index: 1, block: 19_000_000, ts: new Date().toISOString(), wallet: hex(20), wallet_label: "Test whale",
  token: "0x" + "11".repeat(20), symbol: "TESTTOK", category: "dex_buy", amount: "1000", usd: 250_000, venue: "Uniswap V3",
  ...over
})

export const newToken = () => ({ token: hex(20), symbol: `T${randomBytes(3).toString("hex").toUpperCase()}` })
export const newWallet = () => hex(20)

export const call = async (app: TestApp, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: {
      ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body)
  })
  const text = await res.text()
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON
  }
  return { status: res.status, body }
}

export const internalHeaders = (app: TestApp) => ({ "x-internal-secret": app.env.INTERNAL_SECRET! })

/** True when the fan-out and the notifier have handled everything published so far. */
export const settled = (app: TestApp) =>
  app.runtime.runPromise(Effect.gen(function* () {
    const bus = yield* Bus
    for (const [stream, group] of [[STREAMS.chainTx, "alert-fanout"], [STREAMS.domainEvents, "alert-events"], [STREAMS.notify, "notifier"]] as const) {
      const info = yield* bus.groupInfo(stream, group).pipe(Effect.orElseSucceed(() => ({ lag: 0, pending: 0 })))
      if ((info.lag ?? 0) > 0 || info.pending > 0) return false
    }
    return true
  }))
