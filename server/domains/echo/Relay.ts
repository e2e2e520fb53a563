/**
 * EchoRelay: an HTTP trade sent through the user's echo-portfolio actor instead of applied by the request
 * (`ECHO_HTTP_TRADES=actor`; issue 31 §3 measures both, docs/domains/echo.md says which is the default and why).
 * The request publishes a `Trade` command on `echo.cmd` under its command id and waits for the command's outcome to
 * be committed — a trade in echo_trades, or a rejection in echo_commands — which every process can see, whichever
 * actor process applied it. One poller per process looks up all the commands its requests wait for in one query.
 * A replayed command id answers from the stored trade without a new command.
 */
import { SqlClient } from "@effect/sql"
import { Deferred, Duration, Effect, Queue } from "effect"
import { Unavailable } from "../../platform/http/Errors"
import { Bus } from "../../platform/infra/Bus"
import { EchoBook } from "./Book"
import { CommandConflict, InsufficientCash, InsufficientHoldings, NotTradable, type EchoError } from "./Errors"
import type { Side } from "./Ledger"
import type { TradeRow } from "./Repo"
import { tradeView } from "./Views"

type Outcome = { readonly trade: TradeRow } | { readonly rejected: Record<string, any> }

/** How long a request waits for its command's outcome before answering 503 (the command still applies later, once). */
const WAIT_MS = 15_000
const POLL_MS = 2

const errorOf = (o: Record<string, any>): EchoError => {
  switch (o.rejected) {
    case "InsufficientCash": return new InsufficientCash({ available_cash: o.available_cash, required_usd: o.required_usd })
    case "InsufficientHoldings": return new InsufficientHoldings({ token: o.token, available_quantity: o.available_quantity, requested_quantity: o.requested_quantity })
    case "CommandConflict": return new CommandConflict({ command_id: o.command_id })
    default: return new NotTradable({ field: o.field ?? "token", input: o.input ?? null, message: o.message ?? "Not tradable", reason: o.reason ?? "invalid" })
  }
}

export class EchoRelay extends Effect.Service<EchoRelay>()("app/echo/EchoRelay", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const bus = yield* Bus
    const book = yield* EchoBook
    const waiting = new Map<string, Deferred.Deferred<Outcome>>()

    const poll = Effect.gen(function* () {
      if (waiting.size === 0) return
      const ids = [...waiting.keys()]
      const rows = yield* sql<{ command_id: string; trade: TradeRow | null; outcome: Record<string, any> | null }>`
        SELECT t.command_id, row_to_json(t) AS trade, NULL::jsonb AS outcome FROM echo_trades t WHERE t.command_id = ANY(${ids}::text[])
        UNION ALL SELECT c.command_id, NULL, c.outcome FROM echo_commands c WHERE c.command_id = ANY(${ids}::text[])`
      for (const r of rows) {
        const d = waiting.get(r.command_id)
        if (!d) continue
        waiting.delete(r.command_id)
        const t = r.trade
        yield* Deferred.succeed(d, t
          ? { trade: { ...t, created_at: new Date(t.created_at), opened_at: t.opened_at === null ? null : new Date(t.opened_at) } }
          : { rejected: r.outcome! })
      }
    }).pipe(Effect.catchAllCause((c) => Effect.logWarning("echo relay: poll failed", c)))
    // Polls every POLL_MS while some request waits; idle, it sleeps until the next request wakes it.
    const wake = yield* Queue.sliding<void>(1)
    yield* Effect.gen(function* () {
      while (true) {
        if (waiting.size === 0) yield* Queue.take(wake)
        yield* poll
        yield* Effect.sleep(Duration.millis(POLL_MS))
      }
    }).pipe(Effect.forkScoped)

    const trade = Effect.fn("EchoRelay.trade")(function* (userId: number, commandId: string, o: { side: Side; token: string; usd?: number | undefined; quantity?: number | undefined }) {
      const replay = yield* book.replayOf(userId, commandId)
      if (replay) return replay
      const done = waiting.get(commandId) ?? (yield* Deferred.make<Outcome>())
      waiting.set(commandId, done)
      yield* Queue.offer(wake, undefined)
      yield* bus.publish("echo.cmd", { _tag: "Trade", messageId: commandId, userId, side: o.side, token: o.token, usd: o.usd, quantity: o.quantity }, 100_000)
      const outcome = yield* Deferred.await(done).pipe(
        Effect.timeoutFail({ duration: Duration.millis(WAIT_MS), onTimeout: () => new Unavailable({ message: "The trade is queued; retry with the same command_id for its result", code: "echo_trade_queued" }) }),
        Effect.ensuring(Effect.sync(() => { if (waiting.get(commandId) === done) waiting.delete(commandId) })))
      if ("rejected" in outcome) return yield* Effect.fail(errorOf(outcome.rejected))
      if (Number(outcome.trade.user_id) !== userId) return yield* Effect.fail(new CommandConflict({ command_id: commandId }))
      return { trade: tradeView(outcome.trade), portfolio: yield* book.view(userId), replayed: false }
    })

    return { trade } as const
  })
}) {}
