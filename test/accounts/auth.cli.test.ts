/**
 * The operator command: `npm run admin -- create-user | set-tier | list-users`. The commands run in-process against
 * the running app's database (then the account is used over HTTP), and the real `npm run admin` runs as a child
 * process against the same database (the real PostgreSQL, or the app's embedded one over its wire protocol).
 */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { PgClient } from "@effect/sql-pg"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { createUser as createUserCommand, formatUsers, listUsers, setTier as setTierCommand } from "../../server/domains/accounts/AdminCommands"
import { Entitlements } from "../../server/domains/accounts/Entitlements"
import { AccountsRepo } from "../../server/domains/accounts/Repo"
import { bearer, createUser, login, setTier } from "../support/auth"
import { realDatabaseUrl, startApp, type TestApp } from "../support/harness"

// A whole app plus real SMTP per file: leave room for a loaded machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 })

const run = promisify(execFile)
let app: TestApp

beforeAll(async () => {
  app = await startApp()
})
afterAll(async () => {
  await app?.close()
})

const me = async (token: string) => (await fetch(app.url + "/auth/me", { headers: bearer(token) })).json()
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure") }, (e: unknown) => e as { code?: number; stderr?: string })
/** The error a command fails with. */
const refusal = (effect: Effect.Effect<unknown, unknown, AccountsRepo | Entitlements | any>) =>
  app.runtime.runPromise(
    Effect.flip(effect).pipe(Effect.provide(Entitlements.Default), Effect.provide(AccountsRepo.Default)) as Effect.Effect<{ _tag?: string; message?: string }>
  )

describe("admin commands", () => {
  it("create-user makes a verified account with an operator grant and the admin role", async () => {
    const created = await createUser(app, { email: "Operator@Example.com", password: "operator password", tier: "whale", admin: true })
    expect(created).toMatchObject({ email: "operator@example.com", tier: "whale", admin: true })
    const { token } = await login(app, "operator@example.com", "operator password")
    expect(await me(token)).toMatchObject({ tier: "whale", admin: true, email_verified: true })
    // A grant, stored as such — not a fake subscription.
    expect(await app.query("SELECT tier, granted_by FROM tier_grants WHERE user_id = $1", [created.id])).toEqual([{ tier: "whale", granted_by: "cli" }])
    expect(await app.query("SELECT 1 FROM subscriptions WHERE user_id = $1", [created.id])).toHaveLength(0)
  })

  it("set-tier changes the effective tier at once; free removes the grant", async () => {
    await createUser(app, { email: "promoted@example.com" })
    const { token } = await login(app, "promoted@example.com")
    expect((await me(token)).tier).toBe("free")
    expect(await setTier(app, "promoted@example.com", "pro")).toMatchObject({ granted: "pro", tier: "pro" })
    expect((await me(token)).tier).toBe("pro")
    expect(await setTier(app, "promoted@example.com", "staff")).toMatchObject({ tier: "staff" })
    await setTier(app, "promoted@example.com", "free")
    expect((await me(token)).tier).toBe("free")
  })

  it("refuses bad input: taken e-mail, unknown account, unknown tier, short password", async () => {
    expect((await refusal(createUserCommand({ email: "promoted@example.com", password: "long enough pass" })))._tag).toBe("AccountExists")
    expect((await refusal(setTierCommand({ email: "nobody@example.com", tier: "pro" })))._tag).toBe("AccountNotFound")
    expect((await refusal(setTierCommand({ email: "promoted@example.com", tier: "emperor" }))).message).toContain("tier")
    expect((await refusal(setTierCommand({ email: "promoted@example.com", tier: "anon" }))).message).toContain("tier")
    expect((await refusal(createUserCommand({ email: "weak@example.com", password: "short" }))).message).toContain("password")
    expect(await app.query("SELECT 1 FROM users WHERE email = 'weak@example.com'")).toHaveLength(0)
  })

  it("list-users shows each account with its effective tier and role", async () => {
    const users = await app.runtime.runPromise(listUsers().pipe(Effect.provide(Entitlements.Default), Effect.provide(AccountsRepo.Default)))
    expect(users).toEqual(expect.arrayContaining([
      expect.objectContaining({ email: "operator@example.com", tier: "whale", admin: true, verified: true }),
      expect.objectContaining({ email: "promoted@example.com", tier: "free", admin: false })
    ]))
    const table = formatUsers(users).split("\n")
    expect(table[0]).toMatch(/^id\s+email\s+tier\s+admin\s+verified/)
    expect(table.find((l) => l.includes("operator@example.com"))).toMatch(/operator@example\.com\s+whale\s+true\s+true/)
  })
})

describe("npm run admin (child process)", () => {
  it("create-user, set-tier and list-users work from the command line on the app's database", { timeout: 300_000 }, async () => {
    // The app's database, embedded (its PGlite server speaks the PostgreSQL protocol) or real.
    const pg = await app.runtime.runPromise(PgClient.PgClient)
    const databaseUrl = realDatabaseUrl ? app.env.DATABASE_URL! : `postgres://postgres@${pg.config.host}:${pg.config.port}/postgres`
    const env: Record<string, string> = { ...(process.env as Record<string, string>), LOG_LEVEL: "warn", DATABASE_URL: databaseUrl, DB_POOL_SIZE: "1" }
    const admin = (...args: string[]) => run("npm", ["run", "--silent", "admin", "--", ...args], { env, cwd: process.cwd() })
    const created = await admin("create-user", "--email", "CLI@example.com", "--password", "cli password 123", "--tier", "pro")
    expect(created.stdout).toMatch(/created user \d+ cli@example\.com \(tier pro\)/)
    const set = await admin("set-tier", "--email", "cli@example.com", "--tier", "alpha")
    expect(set.stdout).toContain("effective tier alpha")
    const listed = await admin("list-users", "--json")
    expect(JSON.parse(listed.stdout.trim().split("\n").pop()!)).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: "cli@example.com", tier: "alpha", verified: true, admin: false })])
    )
    const dup = await failure(admin("create-user", "--email", "cli@example.com", "--password", "cli password 123"))
    expect(dup.code).toBe(1)
    expect(dup.stderr).toContain("exists already")
    const usage = await failure(admin("promote"))
    expect(usage.code).toBe(2)
    // The running app sees the account at once.
    const { token } = await login(app, "cli@example.com", "cli password 123")
    expect(await me(token)).toMatchObject({ tier: "alpha", email_verified: true })
  })
})
