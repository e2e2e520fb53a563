/**
 * The app for bench:stream and bench:export, in this process (as bench:api builds it): its own database
 * (throwawayDatabase), Redis under a fresh prefix, no daily limit in the way, and a whale-tier user with a key.
 */
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { AppInfo, AppLive } from "../server/App"
import { createUser } from "../server/domains/accounts/AdminCommands"
import { Entitlements } from "../server/domains/accounts/Entitlements"
import { AccountsRepo } from "../server/domains/accounts/Repo"
import { freePort, throwawayDatabase } from "./support"

export const startBenchApp = async (label: string, extra: Record<string, string> = {}) => {
  const db = await throwawayDatabase(label)
  const env: Record<string, string> = {
    PORT: String(await freePort()), METRICS_PORT: "0", HOST: "127.0.0.1", DATA_DIR: db.env.DATA_DIR!, EMBEDDED_DB_DIR: "memory://", WHALE_ROLES: "http",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn", REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", REDIS_PREFIX: `bench:${randomBytes(4).toString("hex")}:`,
    API_DAILY_LIMIT: "2000000000", CHAIN_START_BLOCK: "1000000000000", CHAIN_POLL_MS: "600000",
    // As deployed: answers are not checked against their schemas (RESPONSE_CHECK's default outside production is
    // `warn`, which validates every answer: it halved this benchmark's public throughput).
    RESPONSE_CHECK: "off",
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}), ...extra
  }
  const runtime = ManagedRuntime.make(AppLive.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))))
  const port = (await runtime.runPromise(AppInfo)).port!
  const base = `http://127.0.0.1:${port}`
  const sql = (text: string, params: ReadonlyArray<unknown> = []) =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (s) => s.unsafe(text, params as Array<never>)))
  const whaleKey = async () => {
    const email = `bench-${randomBytes(4).toString("hex")}@example.com`
    const password = "bench password long enough"
    await runtime.runPromise(createUser({ email, password, tier: "whale" }).pipe(Effect.provide(Entitlements.Default), Effect.provide(AccountsRepo.Default)) as Effect.Effect<unknown, unknown, never>)
    const session = await (await fetch(`${base}/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) })).json() as { access_token: string }
    const created = await (await fetch(`${base}/api/keys/create`, {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${session.access_token}` }, body: JSON.stringify({ name: "bench" })
    })).json() as { key: string }
    return { key: created.key, token: session.access_token }
  }
  const close = async () => {
    await runtime.dispose()
    await db.drop()
  }
  return { runtime, port, base, sql, whaleKey, close }
}
