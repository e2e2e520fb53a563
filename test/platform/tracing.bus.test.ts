/**
 * Trace context across the bus (server/platform/ops/TraceContext.ts), on the in-memory bus and on Redis Streams
 * (with REDIS_URL): with tracing on, an entry carries its publisher's `traceparent` beside the payload, and the
 * consumer's handling span (`<actor>.handle`) continues it — so a record published, handled and passed on by a
 * second actor (block → fan-out → notifier) gives spans of one trace. With tracing off, nothing is attached.
 */
import { mkdtempSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime, Scope, type Tracer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { streamActor, type ActorDef } from "../../server/platform/actors/Actor"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { startActor } from "../../server/platform/actors/Runner"
import { AppConfig } from "../../server/platform/Config"
import { Bus } from "../../server/platform/infra/Bus"
import { BusMemory } from "../../server/platform/infra/BusMemory"
import { BusRedis } from "../../server/platform/infra/BusRedis"
import { Kv } from "../../server/platform/infra/Kv"
import { RedisClient } from "../../server/platform/infra/Redis"
import { dropRedisPrefix, realRedisUrl, skipWithout, testEnv } from "../support/env"
import { spanCollector } from "../support/spans"
import { waitFor } from "../support/wait"

const Msg = z.object({ messageId: z.string(), n: z.number() })
type Msg = z.infer<typeof Msg>

const prefixes: Array<string> = []
afterAll(async () => {
  if (realRedisUrl) for (const p of prefixes) await dropRedisPrefix(realRedisUrl, p)
})

const makeRuntime = (kind: "memory" | "redis", tracer: Tracer.Tracer | null) => {
  const env = testEnv(mkdtempSync(join(tmpdir(), "whale-trace-")))
  const config = AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
  let busKv: Layer.Layer<Bus | Kv>
  if (kind === "memory") busKv = Layer.merge(BusMemory.layer, Kv.memory)
  else {
    const prefix = `test:${randomBytes(4).toString("hex")}:`
    prefixes.push(prefix)
    busKv = Layer.merge(BusRedis.layer(), Kv.redis).pipe(Layer.provide(RedisClient.layer({ url: realRedisUrl!, prefix }).pipe(Layer.orDie)))
  }
  const base = Layer.mergeAll(busKv, ActorRegistry.Default, config, Logger.minimumLogLevel(LogLevel.Error))
  return ManagedRuntime.make(tracer === null ? base : Layer.merge(base, Layer.setTracer(tracer)))
}
type Rt = ReturnType<typeof makeRuntime>

const start = async (rt: Rt, def: ActorDef<never>) => {
  const scope = await rt.runPromise(Scope.make())
  await rt.runPromise(startActor(def).pipe(Scope.extend(scope)))
  return () => rt.runPromise(Scope.close(scope, Exit.void))
}

/** The span a handler runs in, and its ancestors' ids (nearest first). */
const where = Effect.map(Effect.currentSpan.pipe(Effect.orDie), (span) => {
  const ancestors: Array<string> = []
  for (let p = span.parent; p._tag === "Some"; p = p.value._tag === "Span" ? p.value.parent : { _tag: "None" } as never) ancestors.push(p.value.spanId)
  return { traceId: span.traceId, spanId: span.spanId, ancestors }
})

for (const kind of ["memory", "redis"] as const) {
  const missingRedis = kind === "redis" && skipWithout("REDIS_URL")
  describe.skipIf(missingRedis)(`trace context on the ${kind} bus${missingRedis ? " (skipped: REDIS_URL not set)" : ""}`, () => {
    it("a record published, handled, passed on and handled again: one trace, each handling below its publish", async () => {
      const collector = spanCollector()
      const rt = makeRuntime(kind, collector.tracer)
      const seen: Array<{ actor: string; traceId: string; ancestors: Array<string> }> = []
      // "fanout" reads a whole read at once (behaviourMany) and passes each record on; "notifier" one by one.
      const stopFanout = await start(rt, streamActor({
        name: "fanout", stream: "t.records", schema: Msg,
        behaviourMany: Effect.map(Bus, (bus) => (ms: ReadonlyArray<Msg>) => Effect.gen(function* () {
          const at = yield* where
          seen.push({ actor: "fanout", ...at })
          yield* bus.publishMany("t.notify", ms.map((m) => ({ messageId: `n:${m.messageId}`, n: m.n })))
        }))
      }) as ActorDef<never>)
      const stopNotifier = await start(rt, streamActor({
        name: "notifier", stream: "t.notify", schema: Msg,
        behaviour: Effect.succeed((_: Msg) => Effect.map(where, (at) => { seen.push({ actor: "notifier", ...at }) }))
      }))
      const root = await rt.runPromise(Effect.gen(function* () {
        const bus = yield* Bus
        yield* bus.publishMany("t.records", [{ messageId: "a", n: 1 }, { messageId: "b", n: 2 }])
        return yield* where
      }).pipe(Effect.withSpan("block")))
      await waitFor(() => seen.filter((s) => s.actor === "notifier").length === 2, 10_000)

      expect(seen.map((s) => s.traceId)).toEqual(seen.map(() => root.traceId))
      const publishes = collector.spans.filter((s) => s.name === `Bus${kind === "redis" ? "Redis" : "Memory"}.publishMany`)
      const [blockPublish] = publishes.filter((s) => s.parent._tag === "Some" && s.parent.value.spanId === root.spanId)
      expect(blockPublish).toBeDefined()
      // fanout.handle's parent is the block's publish; the notifier's handling sits below the fan-out's publish.
      const [fanoutHandle] = collector.named("fanout.handle")
      expect(fanoutHandle?.parent._tag === "Some" && fanoutHandle.parent.value.spanId).toBe(blockPublish!.spanId)
      expect(fanoutHandle?.kind).toBe("consumer")
      const fanoutPublish = publishes.find((s) => s.parent._tag === "Some" && s.parent.value.spanId === fanoutHandle!.spanId)
      expect(fanoutPublish).toBeDefined()
      const notified = seen.filter((s) => s.actor === "notifier")
      for (const n of notified) expect(n.ancestors).toContain(fanoutPublish!.spanId)
      expect(collector.named("notifier.handle").every((s) => s.traceId === root.traceId)).toBe(true)
      await stopNotifier()
      await stopFanout()
      await rt.dispose()
    }, 30_000)

    it("a read gathering several publishes continues the first and links the others", async () => {
      const collector = spanCollector()
      const rt = makeRuntime(kind, collector.tracer)
      const traces = await rt.runPromise(Effect.gen(function* () {
        const bus = yield* Bus
        const out: Array<string> = []
        for (const n of [1, 2, 3]) {
          out.push(yield* Effect.map(where, (w) => w.traceId).pipe(Effect.tap(() => bus.publish("t.batch", { messageId: `m${n}`, n })), Effect.withSpan(`publisher ${n}`)))
        }
        return out
      }))
      expect(new Set(traces).size).toBe(3)
      const handled: Array<number> = []
      const stop = await start(rt, streamActor({
        name: "batcher", stream: "t.batch", schema: Msg,
        behaviourMany: Effect.succeed((ms: ReadonlyArray<Msg>) => Effect.sync(() => { handled.push(...ms.map((m) => m.n)) }))
      }))
      await waitFor(() => handled.length === 3, 10_000)
      const [span] = collector.named("batcher.handle")
      expect(span?.traceId).toBe(traces[0])
      expect(span?.links.map((l) => l.span.traceId)).toEqual(traces.slice(1))
      await stop()
      await rt.dispose()
    }, 30_000)

    it("with tracing off an entry carries no trace context", async () => {
      const rt = makeRuntime(kind, null)
      const entries = await rt.runPromise(Effect.gen(function* () {
        const bus = yield* Bus
        yield* bus.ensureGroup("t.off", "g", "0")
        yield* bus.publish("t.off", { messageId: "x", n: 1 })
        yield* bus.publishMany("t.off", [{ messageId: "y", n: 2 }])
        return yield* bus.read({ stream: "t.off", group: "g", consumer: "c", count: 10, blockMs: 0 })
      }).pipe(Effect.withSpan("publisher")))
      expect(entries.map((e) => e.payload.n)).toEqual([1, 2])
      expect(entries.map((e) => e.trace)).toEqual([undefined, undefined])
      await rt.dispose()
    }, 30_000)

    it("with tracing on an entry carries its publisher's traceparent, not in its payload", async () => {
      const collector = spanCollector()
      const rt = makeRuntime(kind, collector.tracer)
      const [entries, at] = await rt.runPromise(Effect.gen(function* () {
        const bus = yield* Bus
        yield* bus.ensureGroup("t.on", "g", "0")
        yield* bus.publish("t.on", { messageId: "x", n: 1 })
        yield* bus.publishMany("t.on", [{ messageId: "y", n: 2 }])
        return [yield* bus.read({ stream: "t.on", group: "g", consumer: "c", count: 10, blockMs: 0 }), yield* where] as const
      }).pipe(Effect.withSpan("publisher")))
      const publishSpans = collector.spans.filter((s) => /^Bus(Redis|Memory)\.publish/.test(s.name))
      expect(entries.map((e) => e.trace)).toEqual(publishSpans.map((s) => `00-${at.traceId}-${s.spanId}-01`))
      expect(entries.map((e) => Object.keys(e.payload).sort())).toEqual([["messageId", "n"], ["messageId", "n"]])
      await rt.dispose()
    }, 30_000)
  })
}
