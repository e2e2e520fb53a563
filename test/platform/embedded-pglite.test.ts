/**
 * The embedded PostgreSQL serves several pool connections on PGlite's single session: concurrent parameterised
 * queries from different connections must not interleave their extended-protocol messages (regression: without
 * server/platform/infra/embedded/sequencedQueue.ts they failed with `portal "" does not exist`).
 */
import { Effect } from "effect"
import Pg from "pg"
import { describe, expect, it } from "vitest"
import { embeddedPostgres } from "../../server/platform/infra/Embedded"

describe("embedded PostgreSQL under concurrent connections", () => {
  it("keeps each connection's queries whole while another connection holds transactions", { timeout: 60_000 }, async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { port } = yield* embeddedPostgres("memory://", 6)
          const pool = new Pg.Pool({ host: "127.0.0.1", port, user: "postgres", database: "postgres", max: 4 })
          yield* Effect.addFinalizer(() => Effect.promise(() => pool.end()))
          yield* Effect.promise(async () => {
            await pool.query("CREATE TABLE t (n int)")
            // One connection keeps opening short transactions: the others' queries queue up behind each one and
            // are released together when it commits — where their messages used to interleave.
            let stop = false
            const holder = (async () => {
              const c = await pool.connect()
              for (let i = 0; !stop; i++) {
                await c.query("BEGIN")
                await c.query("INSERT INTO t VALUES ($1)", [i])
                await new Promise((r) => setTimeout(r, 2))
                await c.query("COMMIT")
              }
              c.release()
            })()
            const results = await Promise.allSettled(
              Array.from({ length: 200 }, (_, i) =>
                i % 2 === 0
                  ? pool.query<{ n: number; s: string }>("SELECT $1::int AS n, repeat($2::text, $1::int % 7) AS s", [i, "x"])
                  : pool.query<{ n: number; s: string }>("SELECT $1::int AS n, $2::text || '!' AS s", [i, "y"])
              )
            )
            stop = true
            await holder
            const failures = results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))
            expect(failures.slice(0, 3)).toEqual([])
            results.forEach((r, i) => {
              const row = (r as PromiseFulfilledResult<Pg.QueryResult<{ n: number; s: string }>>).value.rows[0]
              expect(row).toEqual({ n: i, s: i % 2 === 0 ? "x".repeat(i % 7) : "y!" })
            })
          })
        })
      )
    )
  })
})
