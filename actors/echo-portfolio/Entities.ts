/**
 * The per-user entities of the echo-portfolio actor in this process: one per active user, created by the user's
 * first command (or `Touch`), passivated after ECHO_ACTOR_IDLE_MS without one. An entity serializes its user's
 * commands (a one-permit semaphore, FIFO) and remembers which tokens the user holds, so a price tick revalues
 * only the portfolios it moves. Valuations are pushed at most once a second per user (a ticker flushes the dirty
 * ones). Transient state: rebuilt from the database on demand; losing it loses nothing.
 *
 * Across processes the same user may have an entity in two actor processes at once (the consumer group hands out
 * entries by availability, not by key); the portfolio row lock in EchoBook keeps their writes serialized, so
 * correctness never depends on the entity being the only one.
 */
import { Clock, Effect, Schedule } from "effect"
import { EchoBook } from "../../server/domains/echo/Book"

interface Entity {
  readonly userId: number
  readonly lock: Effect.Semaphore
  lastActive: number
  busy: number
  tokens: ReadonlySet<string>
  dirty: boolean
}

export class EchoEntities extends Effect.Service<EchoEntities>()("app/echo/EchoEntities", {
  scoped: Effect.gen(function* () {
    const book = yield* EchoBook
    const entities = new Map<number, Entity>()
    let passivated = 0

    const now = Clock.currentTimeMillis

    const loadTokens = (e: Entity) =>
      book.heldTokens(e.userId).pipe(Effect.map((tokens) => { e.tokens = new Set(tokens) }))

    /** The user's entity, created in one synchronous step (two first commands of a user share one entity). */
    const entityOf = (userId: number) => Effect.gen(function* () {
      const t = yield* now
      const existing = entities.get(userId)
      if (existing) return existing
      const e: Entity = { userId, lock: Effect.unsafeMakeSemaphore(1), lastActive: t, busy: 0, tokens: new Set(), dirty: false }
      entities.set(userId, e)
      return e
    })

    /**
     * Runs `work` as the user's next command (serialized with the user's others). Work that knows the user's held
     * tokens afterwards returns them; otherwise the entity re-reads them.
     */
    const run = <E, R>(userId: number, work: Effect.Effect<ReadonlyArray<string> | void, E, R>) => Effect.gen(function* () {
      const e = yield* entityOf(userId)
      e.busy++
      e.lastActive = yield* now
      return yield* e.lock.withPermits(1)(work.pipe(Effect.flatMap((tokens) => (tokens ? Effect.sync(() => { e.tokens = new Set(tokens) }) : loadTokens(e))))).pipe(
        Effect.ensuring(Effect.flatMap(now, (t) => Effect.sync(() => { e.busy--; e.lastActive = t })))
      )
    })

    /**
     * A user's commands were applied elsewhere in this actor (a batched read, which runs one read at a time and so
     * already serializes every user's commands): the entity is created or kept active, with the tokens now held.
     */
    const observe = (userId: number, tokens: ReadonlyArray<string>) => Effect.gen(function* () {
      const e = yield* entityOf(userId)
      e.lastActive = yield* now
      e.tokens = new Set(tokens)
    })

    /** A price moved: mark the entities holding the token (pushed by the ticker). */
    const priceMoved = (token: string) => Effect.sync(() => {
      let n = 0
      for (const e of entities.values()) if (e.tokens.has(token)) { e.dirty = true; n++ }
      return n
    })

    const flush = Effect.gen(function* () {
      for (const e of entities.values()) {
        if (!e.dirty) continue
        e.dirty = false
        const portfolio = yield* book.view(e.userId)
        yield* book.push(e.userId, { reason: "price", portfolio })
      }
    })

    const sweep = Effect.gen(function* () {
      const t = yield* now
      for (const [id, e] of entities) {
        if (e.busy === 0 && t - e.lastActive >= book.idleMs) {
          entities.delete(id)
          passivated++
        }
      }
    })

    yield* flush.pipe(Effect.catchAllCause((c) => Effect.logWarning("echo: valuation flush failed", c)), Effect.repeat(Schedule.spaced("1 second")), Effect.forkScoped)
    yield* sweep.pipe(Effect.repeat(Schedule.spaced(`${Math.max(250, Math.floor(book.idleMs / 4))} millis`)), Effect.forkScoped)

    return {
      run,
      observe,
      priceMoved,
      sweep,
      flush,
      active: () => entities.size,
      isActive: (userId: number) => entities.has(userId),
      passivated: () => passivated
    } as const
  })
}) {}
