/**
 * The response check (RESPONSE_CHECK): a route whose 2xx JSON answer departs from its contract's response schema
 * fails in `strict` with 500 `response_contract` naming the route and the path of the field — whether the answer
 * came from the handler, from a hot path's cached bytes or as a stream — while `warn` only logs it and `off` lets it
 * through untouched. Routes built here from platform pieces; the test harness runs every other suite in `strict`.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer, Logger, LogLevel, Scope, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { endpoint } from "../../schema/http/endpoint"
import { AppConfig } from "../../server/platform/Config"
import { Guard } from "../../server/platform/http/Guards"
import { JSON_ONLY, Reply } from "../../server/platform/http/Reply"
import { fromMemory, route } from "../../server/platform/http/Route"
import { makeHttpServer } from "../../server/platform/http/Uws"
import { Metrics } from "../../server/platform/ops/Metrics"
import { testEnv } from "../support/env"

const Holding = z.object({ token: z.string(), usd: z.number(), trades: z.number().int() })
const Portfolio = z.object({ holdings: z.array(Holding), total_usd: z.number() })

const contracts = {
  fits: endpoint({ method: "GET", path: "/t/fits", summary: "answers its schema", response: Portfolio }),
  drifts: endpoint({ method: "GET", path: "/t/drifts/{id}", summary: "a count that is a mean", params: z.object({ id: z.string() }), response: Portfolio }),
  cached: endpoint({ method: "GET", path: "/t/cached", summary: "cached bytes on the hot path", response: Portfolio }),
  streamed: endpoint({ method: "GET", path: "/t/streamed", summary: "a streamed body", response: z.array(Holding) }),
  refused: endpoint({ method: "GET", path: "/t/refused", summary: "an error answer is not checked", response: Portfolio }),
  undeclared: endpoint({ method: "GET", path: "/t/undeclared", summary: "no response schema" })
}

const drifted = { holdings: [{ token: "WETH", usd: 1200.5, trades: 3 }, { token: "PEPE", usd: 10, trades: 2.5 }], total_usd: 1210.5 }
const cachedBytes = Buffer.from(JSON.stringify({ holdings: [], total_usd: "1210.50" }))

const startServer = async (mode: "off" | "warn" | "strict") => {
  const env = { ...testEnv(mkdtempSync(join(tmpdir(), "whale-contract-"))), RESPONSE_CHECK: mode }
  const logged: Array<{ level: string; message: string }> = []
  const capture = Logger.make(({ logLevel, message }) => {
    logged.push({ level: logLevel.label, message: (Array.isArray(message) ? message : [message]).map(String).join(" ") })
  })
  const layer = Layer.mergeAll(AppConfig.Default, Metrics.Default, Logger.replace(Logger.defaultLogger, capture), Logger.minimumLogLevel(LogLevel.Warning)).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
  )
  const routes = [
    route(contracts.fits, { guard: Guard.anon, handler: () => Effect.succeed({ holdings: [{ token: "WETH", usd: 1, trades: 1 }], total_usd: 1 }) }),
    route(contracts.drifts, { guard: Guard.anon, handler: () => Effect.succeed(drifted) }),
    route(contracts.cached, {
      guard: Guard.anon, handler: () => Effect.succeed(Reply.rawJson(cachedBytes)),
      fast: fromMemory(() => cachedBytes, JSON_ONLY)
    }),
    route(contracts.streamed, {
      guard: Guard.anon,
      handler: () => Effect.succeed(Reply.jsonStream(Stream.make("[", JSON.stringify({ token: "WETH", usd: 1, trades: 1 }), ",", JSON.stringify({ token: 7, usd: 1, trades: 1 }), "]")))
    }),
    route(contracts.refused, { guard: Guard.anon, handler: () => Effect.succeed(Reply.json({ detail: "no", code: "nope" }, 409)) }),
    route(contracts.undeclared, { guard: Guard.anon, handler: () => Effect.succeed({ anything: ["goes"] }) })
  ]
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(makeHttpServer({ routes }).pipe(Effect.provide(layer), Scope.extend(scope)))
  return {
    url: `http://127.0.0.1:${server.port}`, logged,
    stop: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

describe("response check", () => {
  it("strict: an off-schema answer is a 500 naming the route and the field, from a handler, a hot path or a stream", async () => {
    const s = await startServer("strict")
    try {
      const fits = await fetch(`${s.url}/t/fits`)
      expect(fits.status).toBe(200)

      const drifts = await fetch(`${s.url}/t/drifts/7`)
      expect(drifts.status).toBe(500)
      const body = await drifts.json() as { code: string; detail: string }
      expect(body.code).toBe("response_contract")
      expect(body.detail).toMatch(/^GET \/t\/drifts\/\{id\}: holdings\.1\.trades: /)
      expect(body.detail).toContain("expected int")
      expect(s.logged).toContainEqual(expect.objectContaining({ level: "ERROR", message: expect.stringContaining("holdings.1.trades") }))

      // The hot path's cached bytes are checked as they are (first request: the same bytes through the handler).
      for (let i = 0; i < 2; i++) {
        const cached = await fetch(`${s.url}/t/cached`)
        expect(cached.status).toBe(500)
        expect(((await cached.json()) as { detail: string }).detail).toMatch(/^GET \/t\/cached: total_usd: .*expected number/)
      }

      // A stream's head is out before its end: the connection is closed, the body truncated, the error logged.
      await expect(fetch(`${s.url}/t/streamed`).then((r) => r.json())).rejects.toThrow()
      await expect.poll(() => s.logged.some((l) => l.level === "ERROR" && l.message.includes("GET /t/streamed: 1.token"))).toBe(true)

      // Error answers and routes without a response schema are not checked.
      expect((await fetch(`${s.url}/t/refused`)).status).toBe(409)
      expect(await (await fetch(`${s.url}/t/undeclared`)).json()).toEqual({ anything: ["goes"] })
    } finally {
      await s.stop()
    }
  })

  it("warn: the answer goes out as it was, the mismatch is logged as a warning", async () => {
    const s = await startServer("warn")
    try {
      const drifts = await fetch(`${s.url}/t/drifts/7`)
      expect(drifts.status).toBe(200)
      expect(await drifts.json()).toEqual(drifted)
      expect(s.logged).toContainEqual(expect.objectContaining({ level: "WARN", message: expect.stringContaining("GET /t/drifts/{id}: holdings.1.trades") }))
      expect(((await (await fetch(`${s.url}/t/streamed`)).json()) as Array<unknown>)).toHaveLength(2)
    } finally {
      await s.stop()
    }
  })

  it("off: nothing is checked or logged", async () => {
    const s = await startServer("off")
    try {
      expect(await (await fetch(`${s.url}/t/drifts/7`)).json()).toEqual(drifted)
      expect(await (await fetch(`${s.url}/t/cached`)).json()).toEqual({ holdings: [], total_usd: "1210.50" })
      expect(((await (await fetch(`${s.url}/t/streamed`)).json()) as Array<unknown>)).toHaveLength(2)
      expect(s.logged.filter((l) => l.message.includes("contract"))).toEqual([])
    } finally {
      await s.stop()
    }
  })
})
