/**
 * One webhook POST with node:http(s): its URL through the platform's outbound guard (`resolveOutbound`: every
 * address the host resolves to must be public, unless private destinations are allowed), then a connection to the
 * address that was checked (no second lookup), and a timeout for the whole attempt. What it reports says sent,
 * refused or failed with the HTTP status class — never connection details (whether a port is open, what answered),
 * which the owner sees in the test answer and the history. Never throws.
 */
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { pinnedLookup, resolveOutbound } from "../../../platform/infra/Outbound"

export type PostResult = { readonly status: number } | { readonly error: string }

/** The status class a failed delivery reports (`HTTP 4xx`, `HTTP 5xx`). */
export const statusClass = (status: number) => `HTTP ${Math.floor(status / 100)}xx`

export const postWebhook = async (url: string, headers: Record<string, string>, body: string, timeoutMs: number, allowPrivate: boolean): Promise<PostResult> => {
  const outbound = await resolveOutbound(url, { allowPrivate })
  if (!outbound.ok) return { error: outbound.reason === "unresolvable" ? "failed: the host name does not resolve" : "refused: not a public destination" }
  const { target } = outbound
  return new Promise((resolve) => {
    const send = target.url.protocol === "https:" ? httpsRequest : httpRequest
    let settled = false
    const done = (r: PostResult) => {
      if (!settled) {
        settled = true
        clearTimeout(timer)
        resolve(r)
      }
    }
    const req = send(target.url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "WhaleIntelligence-Webhooks/1" },
      lookup: pinnedLookup(target) as never
    }, (res) => {
      res.resume()
      res.on("end", () => done({ status: res.statusCode ?? 0 }))
      res.on("error", () => done({ status: res.statusCode ?? 0 }))
    })
    const timer = setTimeout(() => {
      req.destroy(new Error("timeout"))
      done({ error: `failed: no answer within ${timeoutMs} ms` })
    }, timeoutMs)
    req.on("error", () => done({ error: "failed: no answer" }))
    req.end(body)
  })
}

/**
 * At most `limit` tasks running at once, the rest started in the order they came (plain promises: a round's
 * thousands of POSTs cost no fiber each).
 */
export const makeLimiter = (limit: number) => {
  let active = 0
  let queue: Array<() => void> = []
  let head = 0
  const next = () => {
    active--
    if (head < queue.length) {
      const start = queue[head++]!
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head)
        head = 0
      }
      start()
    }
  }
  return <A>(task: () => Promise<A>): Promise<A> =>
    new Promise<A>((resolve, reject) => {
      const start = () => {
        active++
        task().then(resolve, reject).finally(next)
      }
      if (active < limit) start()
      else queue.push(start)
    })
}
