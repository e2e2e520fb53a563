/**
 * HTTP/1.1 pipelining: requests sent at once on one connection are answered in order when their replies are
 * produced synchronously (every cached endpoint). uWS does not support deferred replies to pipelined requests
 * (upstream: "async pipelining is not supported"); no browser pipelines, so only cached paths are held to it.
 */
import { connect } from "node:net"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer, Logger, LogLevel, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { AppConfig } from "../../server/platform/Config"
import { Guard } from "../../server/platform/http/Guards"
import { route } from "../../server/platform/http/Route"
import { makeHttpServer } from "../../server/platform/http/Uws"
import { Metrics } from "../../server/platform/ops/Metrics"
import { testEnv } from "../support/env"

let port = 0
const scope = Effect.runSync(Scope.make())
beforeAll(async () => {
  const env = testEnv(mkdtempSync(join(tmpdir(), "whale-pipe-")))
  const layer = Layer.mergeAll(AppConfig.Default, Metrics.Default, Logger.minimumLogLevel(LogLevel.Error)).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
  )
  const routes = [
    route({ method: "GET", path: "/sync/{n}", summary: "", params: z.object({ n: z.string() }) }, { guard: Guard.anon, handler: ({ params }) => Effect.succeed({ n: params.n }) }),
  ]
  port = (await Effect.runPromise(makeHttpServer({ routes }).pipe(Effect.provide(layer), Scope.extend(scope)))).port
})
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

const pipelined = (paths: ReadonlyArray<string>) =>
  new Promise<Array<string>>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let out = ""
    socket.on("data", (c) => {
      out += c.toString("latin1")
      const bodies = [...out.matchAll(/\{"n":"(\d+)"\}/g)].map((m) => m[1]!)
      if (bodies.length === paths.length) {
        socket.destroy()
        resolve(bodies)
      }
    })
    socket.on("error", reject)
    socket.setTimeout(3_000, () => reject(new Error(`only got: ${out.slice(0, 300)}`)))
    socket.on("connect", () => socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: x\r\n\r\n`).join("")))
  })

describe("pipelining", () => {
  it("answers synchronous handlers in order", async () => {
    expect(await pipelined(["/sync/1", "/sync/2", "/sync/3"])).toEqual(["1", "2", "3"])
  })
})
