/**
 * The mail outbox: a message exists only if its transaction commits; the sender retries temporary SMTP failures
 * with back-off, gives up on permanent ones, never fails the request that caused the mail, never hands one row to
 * two senders (SKIP LOCKED) and takes back rows whose sender died; without SMTP_URL messages are only logged.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { retryDelayMs } from "../../actors/mail-outbox/Behaviour"
import { MailOutbox } from "../../server/platform/infra/MailOutbox"
import { Mailer } from "../../server/platform/infra/Mailer"
import { startApp, type TestApp } from "../support/harness"
import { startSmtp, type TestSmtp } from "../support/smtp"
import { waitFor } from "../support/wait"

// A whole app plus real SMTP per file: leave room for a loaded machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 })

let app: TestApp
let smtp: TestSmtp

beforeAll(async () => {
  smtp = await startSmtp()
  app = await startApp({ env: { SMTP_URL: smtp.url, MAIL_POLL_MS: "100", MAIL_RETRY_BASE_MS: "300", MAIL_MAX_ATTEMPTS: "3" } })
})
afterAll(async () => {
  await app?.close()
  await smtp?.close()
})

const post = (path: string, body: unknown) =>
  fetch(app.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

interface Row { status: string; attempts: number; last_error: string | null; text_body: string | null }
const rowsTo = (address: string) =>
  app.query<Row>("SELECT status, attempts, last_error, text_body FROM email_outbox WHERE to_address = $1 ORDER BY id", [address])
const withOutbox = <A>(effect: Effect.Effect<A, unknown, Mailer | MailOutbox | SqlClient.SqlClient>) =>
  app.runtime.runPromise(effect.pipe(Effect.provide(Mailer.Default), Effect.provide(MailOutbox.Default)) as Effect.Effect<A, unknown, never>)

describe("mail outbox", () => {
  it("back-off doubles per attempt up to its cap", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000, 5000))).toEqual([1000, 2000, 4000, 5000])
  })

  it("a temporary SMTP failure is retried later; the request that caused the mail did not notice", async () => {
    smtp.failNext(1, 451)
    const res = await post("/auth/register", { email: "retry@example.com", password: "retry password 1" })
    expect(res.status).toBe(200)
    const mail = await smtp.next("retry@example.com")
    expect(mail.subject).toContain("Confirm")
    await waitFor(async () => (await rowsTo("retry@example.com"))[0]?.status === "sent", 30_000)
    const [row] = await rowsTo("retry@example.com")
    expect(row).toMatchObject({ status: "sent", attempts: 2, text_body: null })
    expect(row!.last_error).toBeNull()
  })

  it("a permanent refusal (5xx) marks the message failed without retrying, and clears a secret body", async () => {
    smtp.failNext(1, 550)
    expect((await post("/auth/register", { email: "bounce@example.com", password: "bounce password 1" })).status).toBe(200)
    await waitFor(async () => (await rowsTo("bounce@example.com"))[0]?.status === "failed", 30_000)
    const [row] = await rowsTo("bounce@example.com")
    expect(row).toMatchObject({ status: "failed", attempts: 1, text_body: null })
    expect(row!.last_error).toContain("550")
    expect(smtp.to("bounce@example.com")).toHaveLength(0)
  })

  it("gives up after MAIL_MAX_ATTEMPTS temporary failures", async () => {
    smtp.failNext(3, 451)
    await withOutbox(Effect.flatMap(Mailer, (m) => m.enqueue({ to: "flaky@example.com", subject: "hello", text: "plain body", kind: "test" })))
    await waitFor(async () => (await rowsTo("flaky@example.com"))[0]?.status === "failed", 30_000)
    const [row] = await rowsTo("flaky@example.com")
    expect(row).toMatchObject({ status: "failed", attempts: 3, text_body: "plain body" })
  })

  it("a message enqueued in a transaction that rolls back is never sent", async () => {
    const outcome = await withOutbox(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const mailer = yield* Mailer
        return yield* sql.withTransaction(
          mailer.enqueue({ to: "rollback@example.com", subject: "never", text: "never", kind: "test" }).pipe(Effect.zipRight(Effect.fail("abort" as const)))
        )
      }).pipe(Effect.either)
    )
    expect(outcome._tag).toBe("Left")
    const committed = await withOutbox(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const mailer = yield* Mailer
        return yield* sql.withTransaction(mailer.enqueue({ to: "commit@example.com", subject: "after commit", text: "hi", kind: "test" }))
      })
    )
    expect(committed).toBeGreaterThan(0)
    await smtp.next("commit@example.com")
    expect(await rowsTo("rollback@example.com")).toHaveLength(0)
    expect(smtp.to("rollback@example.com")).toHaveLength(0)
  })

  it("concurrent senders never claim the same row, and rows of a dead sender are taken back and sent once", async () => {
    await app.query(
      `INSERT INTO email_outbox (kind, to_address, subject, text_body, next_attempt_at)
       SELECT 'test', 'crowd@example.com', 'crowd ' || g, 'body', now() + interval '1 second' FROM generate_series(1, 20) g`
    )
    await new Promise((r) => setTimeout(r, 1100))
    const claims = await withOutbox(Effect.flatMap(MailOutbox, (o) => Effect.all(Array.from({ length: 4 }, () => o.claim(5, 300)), { concurrency: 4 })))
    const ids = claims.flat().map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    // Those claimers "died": once their lease is over, the actor takes the rows back.
    await app.query("UPDATE email_outbox SET next_attempt_at = now() WHERE status = 'sending' AND to_address = 'crowd@example.com'")
    const statuses = () => app.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM email_outbox WHERE to_address = 'crowd@example.com' GROUP BY status"
    )
    // Each row is marked sent just after the SMTP server's answer: once every row is sent, nothing more can go out.
    await waitFor(async () => smtp.to("crowd@example.com").length >= 20 && (await statuses()).every((r) => r.status === "sent"), 30_000)
    expect(await statuses()).toEqual([{ status: "sent", n: 20 }])
    const subjects = smtp.to("crowd@example.com").map((m) => m.subject)
    expect(subjects).toHaveLength(20)
    expect(new Set(subjects).size).toBe(20)
  })
})

describe("without SMTP_URL", () => {
  it("messages land in the outbox as logged, bodies kept for the operator", { timeout: 120_000 }, async () => {
    const bare = await startApp({ env: { MAIL_POLL_MS: "100" } })
    try {
      const res = await fetch(bare.url + "/auth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "local@example.com", password: "local password 1" })
      })
      expect(res.status).toBe(200)
      await waitFor(async () => (await bare.query<Row>("SELECT status FROM email_outbox WHERE to_address = 'local@example.com'"))[0]?.status === "logged", 30_000)
      const [row] = await bare.query<Row>("SELECT status, attempts, text_body FROM email_outbox WHERE to_address = 'local@example.com'")
      expect(row!.text_body).toContain("/auth/verify-email?token=")
    } finally {
      await bare.close()
    }
  })
})
