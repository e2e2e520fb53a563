/**
 * A consumer process for the kill test (test/faults/consumer-kill.test.ts): the real actor runtime (mailbox, claim,
 * dead letters) on Redis, handling `fault.work`. Each message's side effect is an INSERT keyed by its messageId
 * (idempotent); every attempt is also recorded, so the test can see redeliveries. A `poison` message always fails.
 *
 * argv: <redisUrl> <prefix> <databaseUrl>
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import Pg from "pg"
import { z } from "zod"
import { streamActor } from "../../../server/platform/actors/Actor"
import { ActorRegistry } from "../../../server/platform/actors/Registry"
import { startActor } from "../../../server/platform/actors/Runner"
import { AppConfig } from "../../../server/platform/Config"
import { BusRedis } from "../../../server/platform/infra/BusRedis"
import { Kv } from "../../../server/platform/infra/Kv"
import { RedisClient } from "../../../server/platform/infra/Redis"
import { testEnv } from "../../support/env"

const [redisUrl, prefix, databaseUrl] = process.argv.slice(2) as [string, string, string]
const Work = z.object({ messageId: z.string(), kind: z.enum(["ok", "poison"]) })

const pool = new Pg.Pool({ connectionString: databaseUrl, max: 4 })
const env = { ...testEnv(mkdtempSync(join(tmpdir(), "whale-consumer-"))), ACTOR_MAX_DELIVERIES: "3", ACTOR_CLAIM_IDLE_MS: "300", ACTOR_MAX_RESTARTS: "10000", ACTOR_RESTART_MAX_MS: "100" }
const config = AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
const busKv = Layer.merge(BusRedis.layer(), Kv.redis).pipe(Layer.provide(RedisClient.layer({ url: redisUrl, prefix }).pipe(Layer.orDie)))
const rt = ManagedRuntime.make(Layer.mergeAll(busKv, ActorRegistry.Default, config, Logger.minimumLogLevel(LogLevel.Error)))

const actor = streamActor({
  name: "fault-worker", stream: "fault.work", schema: Work, batch: 20,
  behaviour: Effect.succeed((m: z.infer<typeof Work>) => Effect.promise(async () => {
    await pool.query("INSERT INTO fault_attempts (message_id, pid) VALUES ($1, $2)", [m.messageId, process.pid])
    if (m.kind === "poison") throw new Error(`poison ${m.messageId}`)
    // A little work between read and ack, so a kill often lands there.
    await new Promise((r) => setTimeout(r, Math.random() * 4))
    await pool.query("INSERT INTO fault_effects (message_id) VALUES ($1) ON CONFLICT (message_id) DO NOTHING", [m.messageId])
  }).pipe(Effect.orDie))
})

await rt.runPromise(Effect.scoped(Effect.zipRight(startActor(actor as never), Effect.never)) as unknown as Effect.Effect<void>)
