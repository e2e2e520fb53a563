/**
 * The platform's settings (`AppConfig`): process, HTTP, database, Redis, secrets, mail transport, actor runtime,
 * WebSocket hub. A domain's or gateway's own settings are its config slice (`<Domain>Config` in its `Config.ts`).
 *
 * Embedded default (no NODE_ENV=production): secrets that are not set are generated once and kept in
 * `DATA_DIR/secrets.json`, so sessions survive a restart. In production a missing secret stops the start with a
 * message naming the variable.
 */
import { randomBytes } from "node:crypto"
import { parseTrustProxy } from "./http/ClientAddress"
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { Config, ConfigError, Either, Option, Effect, Redacted } from "effect"

export const ALL_ROLES = ["http", "actors", "bot"] as const
export type Role = (typeof ALL_ROLES)[number]

const GENERATED_SECRETS = ["SESSION_SECRET", "INTERNAL_SECRET", "INBOUND_EMAIL_SECRET"] as const
type GeneratedSecret = (typeof GENERATED_SECRETS)[number]

const optionalString = (name: string) => Config.option(Config.nonEmptyString(name)).pipe(Config.map(Option.getOrUndefined))

const roles = Config.string("WHALE_ROLES").pipe(
  Config.withDefault(ALL_ROLES.join(",")),
  Config.mapOrFail((raw) => {
    const picked = raw.split(",").map((r) => r.trim()).filter(Boolean)
    const unknown = picked.filter((r) => !(ALL_ROLES as readonly string[]).includes(r))
    return unknown.length > 0 || picked.length === 0
      ? Either.left(ConfigError.InvalidData(["WHALE_ROLES"], `unknown role(s) ${unknown.join(", ") || "(none)"}; known: ${ALL_ROLES.join(", ")}`))
      : Either.right(new Set(picked as Role[]) as ReadonlySet<Role>)
  })
)

/**
 * Which actors an `actors` process runs (`WHALE_ACTORS`): `all` (the default), a list of actor names, or a list of
 * names each with a leading `-` (all but these). The names are checked against the program's actors at start.
 */
export type ActorSelection =
  | { readonly kind: "all" }
  | { readonly kind: "only" | "except"; readonly names: ReadonlyArray<string> }

export const parseActorSelection = (raw: string): Either.Either<ActorSelection, string> => {
  const items = raw.split(",").map((r) => r.trim()).filter(Boolean)
  if (items.length === 0 || (items.length === 1 && items[0] === "all")) return Either.right({ kind: "all" })
  const excluded = items.filter((i) => i.startsWith("-"))
  if (excluded.length > 0 && excluded.length < items.length) return Either.left("either names to run or names each with a leading '-' to leave out, not both")
  const names = items.map((i) => i.replace(/^-/, ""))
  const bad = names.filter((n) => !/^[a-z][a-z0-9-]*$/.test(n))
  if (bad.length > 0) return Either.left(`not an actor name: ${bad.join(", ")}`)
  return Either.right({ kind: excluded.length > 0 ? "except" : "only", names })
}

/** Whether a process with this selection runs the named actor. */
export const runsActor = (selection: ActorSelection, name: string) =>
  selection.kind === "all" || (selection.kind === "only") === selection.names.includes(name)

const actorSelection = Config.string("WHALE_ACTORS").pipe(
  Config.withDefault("all"),
  Config.mapOrFail((raw) => Either.mapLeft(parseActorSelection(raw), (why) => ConfigError.InvalidData(["WHALE_ACTORS"], why)))
)

/** Reads secrets kept by an earlier embedded run, generating the missing ones. */
const embeddedSecrets = (dataDir: string): Record<GeneratedSecret, string> => {
  mkdirSync(dataDir, { recursive: true })
  const file = join(dataDir, "secrets.json")
  const kept: Partial<Record<GeneratedSecret, string>> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {}
  let changed = false
  for (const name of GENERATED_SECRETS) {
    if (!kept[name]) {
      kept[name] = randomBytes(32).toString("base64url")
      changed = true
    }
  }
  if (changed) writeFileSync(file, JSON.stringify(kept, null, 2), { mode: 0o600 })
  return kept as Record<GeneratedSecret, string>
}

/**
 * The public contact address: CONTACT_EMAIL when set, else the sender's address (MAIL_FROM) unless it is one nobody
 * reads (`no-reply@…`, `noreply@…`) or on no real domain (`localhost`, `example.*`, `*.local`); null otherwise.
 */
export const contactEmailOf = (contact: string | undefined, mailFrom: string): string | null => {
  if (contact !== undefined) return contact.trim()
  const address = (/<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom).trim()
  const [local, domain] = address.split("@")
  if (!local || !domain) return null
  if (/^no-?reply$/i.test(local) || /^(localhost|example\.\w+|.*\.(local|localhost|example|invalid|test))$/i.test(domain)) return null
  return address
}

export class MissingSecret extends Error {
  constructor(readonly names: ReadonlyArray<string>) {
    super(`Missing required secret(s) in production: ${names.join(", ")}. Set them in the environment (see docs/configuration.md).`)
  }
}

export class AppConfig extends Effect.Service<AppConfig>()("app/Config", {
  effect: Effect.gen(function* () {
    const production = (yield* Config.string("NODE_ENV").pipe(Config.withDefault("development"))) === "production"
    const dataDir = resolve(yield* Config.string("DATA_DIR").pipe(Config.withDefault("./var")))
    const port = yield* Config.integer("PORT").pipe(
      Config.withDefault(8080),
      Config.validate({ message: "PORT must be 0 (any free port) to 65535", validation: (p) => p >= 0 && p <= 65535 })
    )
    const host = yield* Config.string("HOST").pipe(Config.withDefault("0.0.0.0"))
    const publicBaseUrl = (yield* optionalString("PUBLIC_BASE_URL")) ?? `http://localhost:${port}`
    const metricsPortRaw = (yield* Config.string("METRICS_PORT").pipe(Config.withDefault("9464"))).trim()
    const metricsPort = metricsPortRaw === "off" ? null : Number(metricsPortRaw)
    if (metricsPort !== null && !(Number.isInteger(metricsPort) && metricsPort >= 0 && metricsPort <= 65535)) {
      return yield* Effect.die(new Error(`METRICS_PORT=${metricsPortRaw}: a port (0 for any free port, 1 to 65535) or off`))
    }
    const trustProxyRaw = yield* optionalString("TRUST_PROXY")
    const trustProxy = yield* Effect.try(() => parseTrustProxy(trustProxyRaw)).pipe(
      Effect.orDieWith((e) => new Error(`TRUST_PROXY=${trustProxyRaw}: ${(e as { error?: Error }).error?.message ?? String(e)} (a hop count, or addresses, CIDRs, loopback, linklocal, uniquelocal)`))
    )

    const secretFromEnv = {
      SESSION_SECRET: yield* optionalString("SESSION_SECRET"),
      INTERNAL_SECRET: yield* optionalString("INTERNAL_SECRET"),
      INBOUND_EMAIL_SECRET: yield* optionalString("INBOUND_EMAIL_SECRET")
    }
    const missing = GENERATED_SECRETS.filter((n) => !secretFromEnv[n])
    if (production && missing.length > 0) return yield* Effect.die(new MissingSecret(missing))
    const generated = missing.length > 0 ? embeddedSecrets(dataDir) : undefined
    const secret = (name: GeneratedSecret) => Redacted.make(secretFromEnv[name] ?? generated![name])

    return {
      production,
      dataDir,
      port,
      host,
      publicBaseUrl: publicBaseUrl.replace(/\/$/, ""),
      /** Which peers may name the client in X-Forwarded-For (http/ClientAddress.ts); default nobody. */
      trustProxy,
      /**
       * Where GET /metrics is served (ops/MetricsServer.ts): its own listener, on loopback by default, never the public
       * port; `port` null = no listener. With `token` set, the public port serves it too, to `Authorization: Bearer`.
       */
      metrics: {
        port: metricsPort,
        host: yield* Config.string("METRICS_HOST").pipe(Config.withDefault("127.0.0.1")),
        token: (yield* Config.option(Config.redacted(Config.nonEmptyString("METRICS_TOKEN")))).pipe(Option.getOrUndefined)
      },
      roles: yield* roles,
      /** Which actors this process runs when it has the `actors` role. */
      actorSelection: yield* actorSelection,
      logLevel: yield* Config.string("LOG_LEVEL").pipe(Config.withDefault("info")),
      databaseUrl: (yield* Config.option(Config.redacted("DATABASE_URL"))).pipe(Option.getOrUndefined),
      redisUrl: (yield* Config.option(Config.redacted("REDIS_URL"))).pipe(Option.getOrUndefined),
      /** Prefix for every Redis key and stream this process touches (tests use a fresh one per file). */
      redisPrefix: yield* Config.string("REDIS_PREFIX").pipe(Config.withDefault("whale:")),
      sessionSecret: secret("SESSION_SECRET"),
      internalSecret: secret("INTERNAL_SECRET"),
      inboundEmailSecret: secret("INBOUND_EMAIL_SECRET"),
      smtpUrl: (yield* Config.option(Config.redacted("SMTP_URL"))).pipe(Option.getOrUndefined),
      mailFrom: yield* Config.string("MAIL_FROM").pipe(Config.withDefault("Whale Intelligence <no-reply@localhost>")),
      /** Where people write to (legal pages): CONTACT_EMAIL, else MAIL_FROM's address unless a placeholder; null: none. */
      contactEmail: contactEmailOf(yield* optionalString("CONTACT_EMAIL"), yield* Config.string("MAIL_FROM").pipe(Config.withDefault(""))),
      mail: {
        /** How often the mail-outbox actor looks for due messages when nothing woke it. */
        pollMs: yield* Config.integer("MAIL_POLL_MS").pipe(Config.withDefault(1_000)),
        /** First retry delay after a failed send; doubles per attempt up to `retryMaxMs`. */
        retryBaseMs: yield* Config.integer("MAIL_RETRY_BASE_MS").pipe(Config.withDefault(30_000)),
        retryMaxMs: yield* Config.integer("MAIL_RETRY_MAX_MS").pipe(Config.withDefault(3_600_000)),
        /** A message still failing after this many attempts is marked `failed`. */
        maxAttempts: yield* Config.integer("MAIL_MAX_ATTEMPTS").pipe(Config.withDefault(8))
      },
      /** Largest request body accepted, in bytes (413 above). */
      maxBodyBytes: yield* Config.integer("MAX_BODY_BYTES").pipe(Config.withDefault(1_048_576)),
      /** A request body must arrive whole within this long (408 and the connection closed otherwise: slow senders). */
      bodyTimeoutMs: yield* Config.integer("BODY_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
      /**
       * Whether 2xx JSON answers are checked against their route's response schema (http/ResponseCheck.ts): `strict`
       * answers a mismatch 500 `response_contract` (the test harness), `warn` logs it (the default outside production),
       * `off` skips the check (the default in production).
       */
      responseCheck: yield* Config.literal("off", "warn", "strict")("RESPONSE_CHECK").pipe(Config.withDefault(production ? "off" as const : "warn" as const)),
      /** How long shutdown waits for in-flight requests before closing connections. */
      shutdownGraceMs: yield* Config.integer("SHUTDOWN_GRACE_MS").pipe(Config.withDefault(10_000)),
      /** Pool size towards PostgreSQL (and the embedded server's connection limit). */
      dbPoolSize: yield* Config.integer("DB_POOL_SIZE").pipe(Config.withDefault(10)),
      /** Where the embedded PostgreSQL keeps its files (`memory://` keeps nothing). */
      embeddedDbDir: yield* Config.string("EMBEDDED_DB_DIR").pipe(Config.withDefault(join(dataDir, "pglite"))),
      actors: {
        /** First restart delay; doubles per restart within the window, with jitter, up to `restartMaxMs`. */
        restartBaseMs: yield* Config.integer("ACTOR_RESTART_BASE_MS").pipe(Config.withDefault(250)),
        restartMaxMs: yield* Config.integer("ACTOR_RESTART_MAX_MS").pipe(Config.withDefault(30_000)),
        /** More restarts than this within the window mark the actor `failed`. */
        maxRestarts: yield* Config.integer("ACTOR_MAX_RESTARTS").pipe(Config.withDefault(5)),
        restartWindowMs: yield* Config.integer("ACTOR_RESTART_WINDOW_MS").pipe(Config.withDefault(60_000)),
        /** A message delivered more often than this goes to `dlq:<stream>`. */
        maxDeliveries: yield* Config.integer("ACTOR_MAX_DELIVERIES").pipe(Config.withDefault(5)),
        /** Pending entries idle this long are re-delivered (failed handlers, dead consumers). */
        claimIdleMs: yield* Config.integer("ACTOR_CLAIM_IDLE_MS").pipe(Config.withDefault(15_000)),
        /** Longest blocking read; also the heartbeat period of an idle actor. */
        blockMs: yield* Config.integer("ACTOR_BLOCK_MS").pipe(Config.withDefault(2_000)),
        /** Longest wait of a deferrable actor (analytics) for the urgent ones (the alert path) of its process. */
        deferMaxMs: yield* Config.integer("ACTOR_DEFER_MAX_MS").pipe(Config.withDefault(2_000)),
        /**
         * How long a singleton's lease (the block listener's, the schedulers') outlives its holder: renewed every third
         * of it; a stand-by process takes over when a dead holder's lease runs out.
         */
        leaseTtlMs: yield* Config.integer("ACTOR_LEASE_TTL_MS").pipe(Config.withDefault(15_000)),
        /** How often lag/pending figures are refreshed. */
        statsIntervalMs: yield* Config.integer("ACTOR_STATS_INTERVAL_MS").pipe(Config.withDefault(5_000))
      },
      /** The WebSocket hub at /ws (server/platform/ws) and the reports and snapshots that feed it. */
      ws: {
        /** Largest client frame; a bigger one closes the connection (1009). */
        maxPayloadBytes: yield* Config.integer("WS_MAX_PAYLOAD_BYTES").pipe(Config.withDefault(4_096)),
        /** Seconds without traffic before a connection is closed; the server pings before that. Rounded to 4 s. */
        idleTimeoutSeconds: yield* Config.integer("WS_IDLE_TIMEOUT_SECONDS").pipe(Config.withDefault(60)),
        /** Bytes queued for one slow client before it is closed (the server is never slowed by it). */
        maxBackpressureBytes: yield* Config.integer("WS_MAX_BACKPRESSURE_BYTES").pipe(Config.withDefault(1_048_576)),
        /** Open connections per client address (429 at the upgrade beyond). */
        maxConnectionsPerIp: yield* Config.integer("WS_MAX_CONNECTIONS_PER_IP").pipe(Config.withDefault(32)),
        maxSubscriptions: yield* Config.integer("WS_MAX_SUBSCRIPTIONS").pipe(Config.withDefault(32)),
        /** Client messages per connection per 10 s (an error beyond, closed at twice as many). */
        maxMessagesPer10s: yield* Config.integer("WS_MAX_MESSAGES_PER_10S").pipe(Config.withDefault(100)),
        /** Entries of each source stream held for resuming clients (the resume bound). */
        history: yield* Config.integer("WS_HISTORY").pipe(Config.withDefault(1_000)),
        /** Most messages a fresh subscription may ask for (`backlog`). */
        maxBacklog: yield* Config.integer("WS_MAX_BACKLOG").pipe(Config.withDefault(200)),
        /** How often each source stream is read for new entries. */
        pollMs: yield* Config.integer("WS_POLL_MS").pipe(Config.withDefault(100)),
        /** How long a resume from a seq this process has not relayed yet waits for it. */
        resumeWaitMs: yield* Config.integer("WS_RESUME_WAIT_MS").pipe(Config.withDefault(3_000)),
        /** Anonymous connections get `feed:trades` this much later (0: live for everyone). */
        anonDelayMs: yield* Config.integer("WS_ANON_DELAY_MS").pipe(Config.withDefault(30_000)),
        /** Every process reports its actors, bus and database on `ops.actors` this often (and on every change). */
        opsReportMs: yield* Config.integer("OPS_REPORT_MS").pipe(Config.withDefault(2_000)),
        /** How often the console-snapshots actor recomputes the index and top tokens (published when changed). */
        snapshotMs: yield* Config.integer("CONSOLE_SNAPSHOT_MS").pipe(Config.withDefault(10_000))
      },
      /** Run migrations at start (the `migrate` command always does). */
      migrateOnStart: yield* Config.boolean("MIGRATE_ON_START").pipe(Config.withDefault(true))
    } as const
  })
}) {}
