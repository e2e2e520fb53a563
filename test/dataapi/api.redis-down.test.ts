/**
 * The keyed API while Redis is unreachable (the documented policy: fail open, bounded by the limit). The server
 * talks to Redis through a TCP proxy that the test closes (every connection dropped, nothing listening) and opens
 * again: meanwhile requests are counted in process from the last count Redis gave, still refused past the limit,
 * and `api_quota_fallback_total` counts them; once Redis is back, counting returns to it. Needs real Redis.
 */
import { createServer, connect, type Server, type Socket } from "node:net"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { quotaKey } from "../../server/gateways/dataapi/Quota"
import { Kv } from "../../server/platform/infra/Kv"
import { realRedisUrl, skipWithout, startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { QUIET_CHAIN, whaleWithKey } from "../support/whales"

const skip = skipWithout("REDIS_URL")

/** A TCP proxy to Redis that can be cut and restored on the same port. */
const redisProxy = async (target: URL) => {
  const sockets = new Set<Socket>()
  let server: Server | null = null
  const open = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname)
        for (const s of [client, upstream]) {
          sockets.add(s)
          s.on("close", () => sockets.delete(s))
          s.on("error", () => s.destroy())
        }
        client.pipe(upstream).pipe(client)
      })
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => resolve((server!.address() as { port: number }).port))
    })
  const port = await open(0)
  return {
    port,
    cut: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy()
      server!.close(() => resolve())
    }),
    restore: () => open(port)
  }
}

let app: TestApp
let proxy: Awaited<ReturnType<typeof redisProxy>>

beforeAll(async () => {
  if (skip) return
  proxy = await redisProxy(new URL(realRedisUrl!))
  const url = new URL(realRedisUrl!)
  url.host = `127.0.0.1:${proxy.port}`
  app = await startApp({ env: { ...QUIET_CHAIN, REDIS_URL: url.toString(), API_QUOTA_RETRY_MS: "300" } })
}, 120_000)
afterAll(async () => {
  await proxy?.restore().catch(() => undefined)
  await app?.close()
})

const metric = async (name: string) => {
  const m = new RegExp(`^${name} (\\d+)`, "m").exec(await (await fetch(`${app.metricsUrl}/metrics`)).text())
  return m ? Number(m[1]) : 0
}

describe.skipIf(skip)("keyed API while Redis is down", () => {
  it("keeps answering from an in-process count bounded by the limit, and returns to Redis when it is back", async () => {
    const { key, userId } = await whaleWithKey(app, "outage@example.com")
    const call = () => fetch(`${app.url}/api/v1/stats`, { headers: { "x-api-key": key } })
    const day = new Date().toISOString().slice(0, 10)
    await app.runtime.runPromise(Effect.flatMap(Kv, (kv) => kv.set(quotaKey(userId, day), "24997", 172_800)))

    const before = await call()
    expect([before.status, before.headers.get("x-ratelimit-remaining")]).toEqual([200, "2"])

    await proxy.cut()
    const started = Date.now()
    const during = [await call(), await call(), await call()]
    // 24,999 and 25,000 pass, counted in process from the last count Redis gave (24,998); the next is refused.
    expect(during.map((r) => r.status)).toEqual([200, 200, 429])
    expect(during.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual(["1", "0", "0"])
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(await metric("api_quota_fallback_total")).toBe(3)
    expect(await metric("api_quota_degraded")).toBe(1)

    await proxy.restore()
    // node-redis reconnects with back-off (up to 5 s); meanwhile the in-process count refuses. Back on Redis, the
    // count continues from what Redis holds (24,998): requests admitted during the outage are not replayed to it.
    let back: Response | undefined
    await waitFor(async () => {
      const r = await call()
      if (r.status !== 200) return false
      back = r
      return true
    }, 30_000, 250)
    expect(back!.headers.get("x-ratelimit-remaining")).toBe("1")
    expect(await metric("api_quota_degraded")).toBe(0)
    const stored = await app.runtime.runPromise(Effect.flatMap(Kv, (kv) => kv.get(quotaKey(userId, day))))
    expect(stored._tag === "Some" && stored.value).toBe("24999")
    expect((await call()).headers.get("x-ratelimit-remaining")).toBe("0")
    expect((await call()).status).toBe(429)
  }, 120_000)
})
