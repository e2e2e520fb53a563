/**
 * The process's Redis connection (node-redis 5), scoped: connected when the layer is built, closed when its scope
 * closes.
 *
 * - Every key this process touches goes through `key(name)`, which prepends the configured prefix.
 * - `run` is for ordinary commands on the shared connection. A rejected command is a defect: Redis faults are not
 *   expected errors for the callers (the Bus and Kv contracts have no error channel).
 * - `blocking` gives each blocking consumer (`XREADGROUP … BLOCK`) a connection of its own, a `duplicate()` made on
 *   first use and closed with the layer (or after `BLOCKING_IDLE_CLOSE` unused): a blocked command holds its
 *   connection, so sharing one would stall every other command queued behind it. If a blocking call is interrupted,
 *   its connection is destroyed (the server stops blocking; entries it may already have delivered stay pending for
 *   that consumer, where `readPending` finds them) and made anew on next use.
 * - Connection errors are logged. The shared connection reconnects with `reconnectBackoff` (commands wait for it);
 *   a blocking connection that breaks fails its read and is replaced on the next one.
 * - Building the layer fails with `RedisConnectError` when Redis does not answer within `connectTimeoutMs`.
 */
import { Context, Data, Duration, Effect, Layer, Redacted, Runtime, Schedule } from "effect"
import { createHash } from "node:crypto"
import { createClient, type RedisClientType } from "redis"

export type NodeRedis = RedisClientType

/** A Lua script, sent by SHA (`evalScript`), with its source for a server whose script cache lacks it. */
export interface Script {
  readonly source: string
  readonly sha: string
}
export const script = (source: string): Script => ({ source, sha: createHash("sha1").update(source).digest("hex") })

/** Runs a script by SHA, sending the source when the server does not have it (after a restart or `SCRIPT FLUSH`). */
export const evalScript = <A = number>(client: NodeRedis, s: Script, keys: ReadonlyArray<string>, args: ReadonlyArray<string>): Promise<A> => {
  const tail = [String(keys.length), ...keys, ...args]
  return client.sendCommand<A>(["EVALSHA", s.sha, ...tail]).catch((error: unknown) => {
    if (error instanceof Error && error.message.startsWith("NOSCRIPT")) return client.sendCommand<A>(["EVAL", s.source, ...tail])
    throw error
  })
}

export interface RedisOptions {
  readonly url: string | Redacted.Redacted<string>
  /** Prepended to every key and stream name, e.g. `whale:` (tests use a fresh `test:<random>:`). */
  readonly prefix: string
  /** Give up building the layer when Redis has not answered within this long. Default 10 s. */
  readonly connectTimeoutMs?: number
  /** Connection name shown by `CLIENT LIST`. Default `whale`. */
  readonly name?: string
}

export class RedisConnectError extends Data.TaggedError("RedisConnectError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** A command that Redis (or the connection) refused; raised as a defect by `run` and `blocking`. */
export class RedisCommandError extends Data.TaggedError("RedisCommandError")<{
  readonly op: string
  readonly cause: unknown
}> {
  override get message() {
    return `Redis ${this.op} failed: ${describeCause(this.cause)}`
  }
}

/** The error text; for a failed MULTI (node-redis's MultiErrorReply), the errors of the commands that failed. */
const describeCause = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause)
  const { replies, errorIndexes } = cause as Error & { replies?: ReadonlyArray<unknown>; errorIndexes?: ReadonlyArray<number> }
  if (!replies || !errorIndexes) return cause.message
  return errorIndexes.map((i) => `#${i}: ${describeCause(replies[i])}`).join("; ")
}

interface Blocker {
  readonly client: NodeRedis
  readonly ready: Promise<unknown>
  /** Calls in flight on it (it is never reaped while in use). */
  inUse: number
  lastUsed: number
}

export interface RedisClientShape {
  /** The shared connection, for callers that want node-redis's typed commands through `run`. */
  readonly client: NodeRedis
  readonly prefix: string
  /** `prefix + name`. */
  readonly key: (name: string) => string
  /** Runs commands on the shared connection; a rejection is a defect. */
  readonly run: <A>(op: string, f: (client: NodeRedis) => Promise<A>) => Effect.Effect<A>
  /** Runs a blocking command on the dedicated connection of `consumer` (any string naming one blocking reader). */
  readonly blocking: <A>(consumer: string, op: string, f: (client: NodeRedis) => Promise<A>) => Effect.Effect<A>
  /** `PING` answered within `PING_TIMEOUT` (false while disconnected). */
  readonly ping: Effect.Effect<boolean>
}

/**
 * node-redis reconnect delays (it takes a function, not a `Schedule`): 50 ms doubling up to 5 s, ±20 % jitter so a
 * fleet of processes does not reconnect in step. Never gives up: readiness reports the outage meanwhile.
 */
export const reconnectBackoff = (retries: number): number => {
  const base = Math.min(50 * 2 ** retries, 5_000)
  return Math.round(base * (0.8 + Math.random() * 0.4))
}

const DEFAULT_CONNECT_TIMEOUT = Duration.seconds(10)
const PING_TIMEOUT = Duration.seconds(1)
/** How long `close()` may wait for replies still in flight before the connection is abandoned. */
const CLOSE_GRACE = Duration.seconds(2)
/** A blocking consumer's connection unused for this long is closed (made again on its next read). */
const BLOCKING_IDLE_CLOSE = Duration.minutes(5)
const REAP_IDLE_BLOCKING = Schedule.spaced("1 minute")
/** Per attempt; `reconnectBackoff` spaces the attempts. */
const SOCKET_CONNECT_TIMEOUT_MS = 5_000

/** `host:port` of a Redis URL, without credentials, for messages. */
const describeUrl = (url: string) => {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || "6379"}`
  } catch {
    return "(unparsable REDIS_URL)"
  }
}

/**
 * Closes the shared connection: `close()` (waits for replies in flight) when connected, `destroy()` when it is still
 * (re)connecting. A server that does not answer within `CLOSE_GRACE` gets its socket unref'd instead, so it cannot
 * hold the process open (node-redis cannot destroy a client once `close()` has begun).
 */
const shutDown = (client: NodeRedis) =>
  Effect.suspend(() => {
    if (!client.isOpen) return Effect.void
    if (!client.isReady) return Effect.sync(() => client.destroy())
    return Effect.promise(() => client.close()).pipe(
      Effect.timeoutOption(CLOSE_GRACE),
      Effect.flatMap((done) =>
        done._tag === "Some"
          ? Effect.void
          : Effect.sync(() => client.unref()).pipe(Effect.zipRight(Effect.logWarning("Redis did not answer while closing; connection abandoned")))
      )
    )
  }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("Redis close failed", cause)))

const make = (options: RedisOptions) =>
  Effect.gen(function* () {
    const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
    const where = describeUrl(url)
    const name = options.name ?? "whale"
    const runtime = yield* Effect.runtime<never>()
    const log = (effect: Effect.Effect<void>) => Runtime.runFork(runtime)(effect.pipe(Effect.annotateLogs({ redis: where })))
    const watch = (client: NodeRedis, connection: string): NodeRedis => {
      client.on("error", (error: unknown) =>
        log(Effect.logWarning(`Redis connection error (${connection})`, error instanceof Error ? error.message : String(error))))
      client.on("reconnecting", () => log(Effect.logDebug(`Redis reconnecting (${connection})`)))
      return client
    }

    const socketOptions = { reconnectStrategy: reconnectBackoff, connectTimeout: SOCKET_CONNECT_TIMEOUT_MS }
    const client = watch(
      createClient({ url, name, socket: socketOptions }) as unknown as NodeRedis,
      "main"
    )
    const connectTimeout = options.connectTimeoutMs === undefined ? DEFAULT_CONNECT_TIMEOUT : Duration.millis(options.connectTimeoutMs)
    // Released with the layer's scope, including when connecting fails or times out below.
    yield* Effect.addFinalizer(() => shutDown(client))
    // Outside acquireRelease on purpose: an acquire is uninterruptible, and the timeout must be able to stop the wait.
    yield* Effect.tryPromise({
      try: () => client.connect(),
      catch: (cause) => new RedisConnectError({ message: `Redis at ${where} refused the connection`, cause })
    }).pipe(
      Effect.timeoutFail({
        duration: connectTimeout,
        onTimeout: () => new RedisConnectError({ message: `Redis at ${where} did not answer within ${Duration.format(connectTimeout)}` })
      })
    )
    yield* Effect.logInfo("Redis connected").pipe(Effect.annotateLogs({ redis: where, prefix: options.prefix }))

    // Dedicated connections of blocking consumers, made on first use and never reconnected: one that breaks closes
    // itself (the blocked read fails; its actor's supervisor retries) and the next call makes a fresh one. node-redis
    // 5.12 leaves a live, untracked socket behind when a client is destroyed while (re)connecting, so a connection is
    // only destroyed once its connect has settled: a reconnect loop would keep that window open.
    const blockers = new Map<string, Blocker>()
    let closed = false
    const retire = (b: Blocker) => {
      b.ready.then(
        () => {
          if (b.client.isOpen) b.client.destroy()
        },
        () => undefined
      )
    }
    const dropBlocker = (consumer: string, b: Blocker) =>
      Effect.sync(() => {
        if (blockers.get(consumer) === b) blockers.delete(consumer)
        retire(b)
      })
    // Finalizers run in reverse order: these close (abandoning whatever they block on) before the main connection.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        for (const b of blockers.values()) retire(b)
        blockers.clear()
      })
    )
    // Consumers come and go (per-user actors): a connection nobody has used for a while is closed.
    yield* Effect.sync(() => {
      const now = Date.now()
      for (const [consumer, b] of blockers) {
        if (b.inUse === 0 && now - b.lastUsed >= Duration.toMillis(BLOCKING_IDLE_CLOSE)) {
          blockers.delete(consumer)
          retire(b)
        }
      }
    }).pipe(Effect.repeat(REAP_IDLE_BLOCKING), Effect.catchAllCause(Effect.logError), Effect.forkScoped)

    const blocker = (consumer: string): Blocker => {
      const existing = blockers.get(consumer)
      if (existing?.client.isOpen) return existing
      const dup = watch(client.duplicate({ socket: { ...socketOptions, reconnectStrategy: false } }) as NodeRedis, `blocking ${consumer}`)
      const made: Blocker = { client: dup, ready: dup.connect(), inUse: 0, lastUsed: Date.now() }
      // A failed connect surfaces through the command awaiting `ready`; keep it from being an unhandled rejection.
      made.ready.catch(() => undefined)
      blockers.set(consumer, made)
      return made
    }

    const run = <A>(op: string, f: (client: NodeRedis) => Promise<A>): Effect.Effect<A> =>
      Effect.tryPromise({ try: () => f(client), catch: (cause) => new RedisCommandError({ op, cause }) }).pipe(Effect.orDie)

    const blocking = <A>(consumer: string, op: string, f: (client: NodeRedis) => Promise<A>): Effect.Effect<A> =>
      Effect.suspend(() => {
        if (closed) return Effect.die(new RedisCommandError({ op, cause: new Error("the Redis layer is closed") }))
        const b = blocker(consumer)
        b.inUse++
        return Effect.tryPromise({
          try: () => b.ready.then(() => f(b.client)),
          catch: (cause) => new RedisCommandError({ op, cause })
        }).pipe(
          Effect.orDie,
          Effect.onInterrupt(() => dropBlocker(consumer, b)),
          Effect.ensuring(
            Effect.sync(() => {
              b.inUse--
              b.lastUsed = Date.now()
            })
          )
        )
      })

    const ping = Effect.suspend(() =>
      client.isReady
        ? Effect.tryPromise(() => client.ping()).pipe(
            Effect.timeoutOption(PING_TIMEOUT),
            Effect.map((reply) => reply._tag === "Some" && reply.value === "PONG"),
            Effect.orElseSucceed(() => false)
          )
        : Effect.succeed(false)
    )

    return {
      client,
      prefix: options.prefix,
      key: (name: string) => options.prefix + name,
      run,
      blocking,
      ping
    } satisfies RedisClientShape
  })

export class RedisClient extends Context.Tag("app/RedisClient")<RedisClient, RedisClientShape>() {
  /** A connected client for the scope of the layer. Fails with `RedisConnectError` when Redis cannot be reached. */
  static readonly layer = (options: RedisOptions): Layer.Layer<RedisClient, RedisConnectError> => Layer.scoped(RedisClient, make(options))
}
