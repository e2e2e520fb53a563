/**
 * One webhook POST with node:http(s): a timeout for the whole attempt, and — unless private destinations are
 * allowed — a DNS lookup that refuses private, loopback and link-local addresses at connect time (so a name that
 * resolves differently after it was saved cannot reach the internal network). Never throws.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import { isIP } from "node:net"
import { isPrivateAddress, isPrivateHostName } from "./Webhooks"

export type PostResult = { readonly status: number } | { readonly error: string }

const guardedLookup = (hostname: string, options: object, callback: (...args: Array<any>) => void) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: Array<LookupAddress>) => {
    if (err) return callback(err)
    const allowed = addresses.filter((a) => !isPrivateAddress(a.address))
    if (allowed.length === 0) return callback(new Error(`refused: ${hostname} resolves to a private address`))
    if ((options as { all?: boolean }).all) return callback(null, allowed)
    callback(null, allowed[0]!.address, allowed[0]!.family)
  })
}

export const postWebhook = (url: string, headers: Record<string, string>, body: string, timeoutMs: number, allowPrivate: boolean): Promise<PostResult> =>
  new Promise((resolve) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return resolve({ error: "invalid URL" })
    }
    const host = target.hostname.replace(/^\[|\]$/g, "")
    if (!allowPrivate && (isPrivateHostName(host) || (isIP(host) !== 0 && isPrivateAddress(host)))) {
      return resolve({ error: "refused: private destination" })
    }
    const send = target.protocol === "https:" ? httpsRequest : httpRequest
    let settled = false
    const done = (r: PostResult) => {
      if (!settled) {
        settled = true
        clearTimeout(timer)
        resolve(r)
      }
    }
    const req = send(target, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "WhaleIntelligence-Webhooks/1" },
      ...(allowPrivate ? {} : { lookup: guardedLookup as never })
    }, (res) => {
      res.resume()
      res.on("end", () => done({ status: res.statusCode ?? 0 }))
      res.on("error", () => done({ status: res.statusCode ?? 0 }))
    })
    const timer = setTimeout(() => {
      req.destroy(new Error(`timeout after ${timeoutMs} ms`))
      done({ error: `timeout after ${timeoutMs} ms` })
    }, timeoutMs)
    req.on("error", (e) => done({ error: e.message }))
    req.end(body)
  })

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
