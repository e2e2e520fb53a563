/**
 * Spans of the Repos (`spanned`, server/platform/ops/Spans.ts): every method of a Repo runs in a span named
 * `<Repo>.<method>` — here PricingRepo on a database of its own (real PostgreSQL with DATABASE_URL, else embedded
 * PGlite), its spans collected by a test tracer — and `spanned` leaves what is not an Effect as it is.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PricingRepo } from "../../server/domains/pricing/Repo"
import { AppConfig } from "../../server/platform/Config"
import { SqlLive } from "../../server/platform/infra/Sql"
import { spanned } from "../../server/platform/ops/Spans"
import { freshDatabase, realDatabaseUrl, testEnv } from "../support/env"
import { spanCollector } from "../support/spans"

describe("spanned", () => {
  it("runs each Effect method, and each Effect member, in a span <Service>.<method>; leaves the rest alone", () => {
    const collector = spanCollector()
    const service = spanned("ThingRepo", {
      find: (id: number) => Effect.succeed(id * 2),
      count: Effect.succeed(3),
      format: (n: number) => `#${n}`,
      limits: { max: 5 }
    } as const)
    const out = Effect.runSync(Effect.all([service.find(21), service.count, service.count]).pipe(Effect.withTracer(collector.tracer)))
    expect(out).toEqual([42, 3, 3])
    expect(collector.spans.map((s) => s.name)).toEqual(["ThingRepo.find", "ThingRepo.count", "ThingRepo.count"])
    expect(service.format(7)).toBe("#7")
    expect(service.limits).toEqual({ max: 5 })
  })
})

describe("a Repo's methods are spans", () => {
  let runtime: ManagedRuntime.ManagedRuntime<PricingRepo, unknown>
  let dataDir: string
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "whale-spans-"))
    const env = testEnv(dataDir)
    if (realDatabaseUrl) {
      const db = await freshDatabase(realDatabaseUrl)
      env.DATABASE_URL = db.url
      drop = db.drop
    }
    runtime = ManagedRuntime.make(PricingRepo.Default.pipe(
      Layer.provide(SqlLive()), Layer.provide(AppConfig.Default), Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
    ))
  }, 120_000)
  afterAll(async () => {
    await runtime?.dispose()
    await drop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("PricingRepo.publicTiers runs its SQL in the span PricingRepo.publicTiers", async () => {
    const collector = spanCollector()
    const tiers = await runtime.runPromise(Effect.flatMap(PricingRepo, (r) => r.publicTiers).pipe(Effect.withTracer(collector.tracer)))
    expect(tiers.length).toBeGreaterThan(0)
    const [span] = collector.named("PricingRepo.publicTiers")
    expect(span?.status._tag).toBe("Ended")
    // The SQL client's own span is its child: the statement ran inside the Repo's span.
    expect(collector.spans.some((s) => s !== span && s.parent._tag === "Some" && s.parent.value.spanId === span!.spanId)).toBe(true)
  }, 60_000)
})
