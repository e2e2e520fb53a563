/**
 * Telling a dependency outage from a bug (server/platform/infra/Unavailable.ts): what HTTP answers 503 instead of 500
 * and what the actor supervisor retries without spending its restart budget. And the NUL rule of validation.
 */
import { Cause, Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { replyForCause } from "../../server/platform/http/Respond"
import { validate } from "../../server/platform/http/Validate"
import { causeIsUnavailable, isUnavailable } from "../../server/platform/infra/Unavailable"

const sqlError = (cause: unknown) => Object.assign(new Error("Failed to acquire connection"), { _tag: "SqlError", cause })
const errno = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code })

describe("isUnavailable", () => {
  it("recognises refused and lost connections, a server shutting down or starting, and exhausted slots", () => {
    for (const e of [errno("ECONNREFUSED"), errno("ECONNRESET"), errno("ETIMEDOUT"), Object.assign(new Error("x"), { code: "57P01" }),
      Object.assign(new Error("x"), { code: "57P03" }), Object.assign(new Error("x"), { code: "08006" }), new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"), new Error("Socket closed unexpectedly"), new Error("The client is closed")]) {
      expect(isUnavailable(sqlError(e)), String(e.message)).toBe(true)
    }
    expect(isUnavailable(sqlError(new AggregateError([errno("ECONNREFUSED")])))).toBe(true)
  })

  it("does not excuse bugs: constraint violations, syntax errors, type errors", () => {
    for (const e of [Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" }),
      Object.assign(new Error("syntax error"), { code: "42601" }), new TypeError("x is undefined"), "a string", null]) {
      expect(isUnavailable(sqlError(e))).toBe(false)
    }
  })

  it("answers 503 database_unavailable with Retry-After for an outage and 500 for anything else", () => {
    const down = replyForCause(Cause.die(sqlError(errno("ECONNREFUSED"))), "r1")
    expect(down.reply.status).toBe(503)
    expect(down.fault).toBe(false)
    expect(JSON.parse(String(down.reply.body)).code).toBe("database_unavailable")
    expect(down.reply.headers).toContainEqual(["retry-after", "5"])
    const bug = replyForCause(Cause.die(new TypeError("boom")), "r2")
    expect(bug.reply.status).toBe(500)
    expect(bug.fault).toBe(true)
    // An outage next to a bug is a bug.
    expect(causeIsUnavailable(Cause.parallel(Cause.die(errno("ECONNRESET")), Cause.die(new TypeError("boom"))))).toBe(false)
    expect(causeIsUnavailable(Cause.fail(errno("ECONNRESET")))).toBe(true)
    expect(causeIsUnavailable(Cause.interrupt("fiber" as never))).toBe(false)
  })
})

describe("NUL characters", () => {
  it("are a 422 wherever they hide: path, query, nested body", async () => {
    const schema = z.object({ a: z.object({ b: z.array(z.string()) }) })
    const exit = await Effect.runPromiseExit(validate("body", schema, { a: { b: ["ok", "x\u0000y"] } }))
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const failure = Cause.failureOption(exit.cause)
      expect(failure._tag === "Some" && failure.value.issues).toEqual([
        { type: "string_pattern_mismatch", loc: ["body", "a", "b", 1], msg: "String should not contain NUL characters", input: null }
      ])
    }
    expect(await Effect.runPromise(validate("query", z.object({ q: z.string() }), { q: "fine" }))).toEqual({ q: "fine" })
  })
})
