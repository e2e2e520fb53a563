/**
 * A local stand-in for the Telegram Bot API on 127.0.0.1 (ephemeral port), speaking its protocol over HTTP:
 * `POST|GET /bot<token>/<method>` with JSON, form or query parameters, answering `{ok, result}` or
 * `{ok:false, error_code, description, parameters?}`.
 *
 *  - `getMe`, `getUpdates` (offset confirms earlier updates, `timeout` long-polls), `sendMessage` (recorded),
 *    `deleteWebhook`.
 *  - Updates are shaped like the captured ones in `../shared/fixtures/telegram-updates/` (`message.json`): tests
 *    build them with `userSays(chatId, text)`.
 *  - Fault injection: `rateLimitNext(n, retryAfter)` answers the next n sendMessage calls 429 with
 *    `parameters.retry_after`; `block(chatId)` answers 403 "bot was blocked by the user".
 */
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { fixturePath } from "./fixtures"

export interface SentMessage {
  readonly chat_id: string
  readonly text: string
  readonly parse_mode?: string
  readonly at: number
}

export interface BotApiServer {
  readonly url: string
  readonly token: string
  readonly sent: Array<SentMessage>
  /** Every method call, in order (method name and parameters). */
  readonly calls: Array<{ method: string; params: Record<string, unknown>; at: number }>
  userSays(chatId: number, text: string, username?: string): void
  rateLimitNext(n: number, retryAfterSeconds: number): void
  block(chatId: number | string): void
  close(): Promise<void>
}

let template: Record<string, any> | null = null
const messageTemplate = () => (template ??= JSON.parse(readFileSync(fixturePath("telegram-updates", "message.json"), "utf8")))

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

export const startBotApi = async (token = "123456:TEST-token"): Promise<BotApiServer> => {
  const updates: Array<Record<string, any>> = []
  const waiting = new Set<() => void>()
  const sent: Array<SentMessage> = []
  const calls: BotApiServer["calls"] = []
  const blocked = new Set<string>()
  let limited = 0
  let retryAfter = 1
  let nextUpdateId = 900_000_000
  let nextMessageId = 1

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(JSON.stringify(body))
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname)
    if (!m) return reply(res, 404, { ok: false, error_code: 404, description: "Not Found" })
    if (m[1] !== token) return reply(res, 401, { ok: false, error_code: 401, description: "Unauthorized" })
    const raw = await readBody(req)
    const params: Record<string, any> = Object.fromEntries(url.searchParams)
    const type = req.headers["content-type"] ?? ""
    if (raw.length > 0) Object.assign(params, type.includes("json") ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw)))
    const method = m[2]!
    calls.push({ method, params, at: Date.now() })
    switch (method) {
      case "getMe":
        return reply(res, 200, { ok: true, result: { id: 1, is_bot: true, first_name: "Whale Alerts", username: "whale_alerts_test_bot" } })
      case "deleteWebhook":
        return reply(res, 200, { ok: true, result: true })
      case "getUpdates": {
        const offset = Number(params.offset ?? 0)
        if (offset > 0) while (updates.length > 0 && updates[0]!.update_id < offset) updates.shift()
        const timeout = Math.min(Number(params.timeout ?? 0), 50)
        if (updates.length === 0 && timeout > 0) {
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer)
              waiting.delete(done)
              resolve()
            }
            const timer = setTimeout(done, timeout * 1000)
            waiting.add(done)
            res.on("close", done)
          })
        }
        if (res.destroyed) return
        const limit = Number(params.limit ?? 100)
        return reply(res, 200, { ok: true, result: updates.slice(0, limit) })
      }
      case "sendMessage": {
        const chat = String(params.chat_id ?? "")
        if (!chat || typeof params.text !== "string" || params.text.length === 0) {
          return reply(res, 400, { ok: false, error_code: 400, description: "Bad Request: message text is empty" })
        }
        if (limited > 0) {
          limited--
          return reply(res, 429, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfter}`, parameters: { retry_after: retryAfter } })
        }
        if (blocked.has(chat)) return reply(res, 403, { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" })
        sent.push({ chat_id: chat, text: params.text, parse_mode: params.parse_mode, at: Date.now() })
        return reply(res, 200, { ok: true, result: { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: Number(chat), type: "private" }, text: params.text } })
      }
      default:
        return reply(res, 404, { ok: false, error_code: 404, description: "Not Found: method not found" })
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => reply(res, 500, { ok: false, error_code: 500, description: String(e) }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    sent,
    calls,
    userSays(chatId, text, username = "username") {
      const t = messageTemplate()
      const update = structuredClone(t)
      update.update_id = nextUpdateId++
      update.message.message_id = nextMessageId++
      update.message.from = { ...t.message.from, id: chatId, username }
      update.message.chat = { ...t.message.chat, id: chatId, username }
      update.message.date = Math.floor(Date.now() / 1000)
      update.message.text = text
      updates.push(update)
      for (const wake of [...waiting]) wake()
    },
    rateLimitNext(n, seconds) {
      limited = n
      retryAfter = seconds
    },
    block(chatId) {
      blocked.add(String(chatId))
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const wake of [...waiting]) wake()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
