/**
 * ALERT_SHARDS: the same alerts and the same block (records and domain events) give the same deliveries with the
 * index split over four shards as with one — same set, none missing, none doubled — and every shard's groups
 * (its fan-out on chain.tx and domain.events, its notifier on notify.<k>) end settled.
 * Real PostgreSQL and Redis when configured, else embedded (PGlite, in-process bus and Kv).
 */
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { ChainTxMessage, DomainEvent, notifyStreamOf, STREAMS } from "../../schema/streams"
import { shardOf } from "../../server/domains/alerts/matching/Shard"
import { AlertShardFanouts } from "../../server/domains/alerts/matching/Shards"
import { Bus } from "../../server/platform/infra/Bus"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { call, newToken, newWallet, record } from "./support"

const USERS = 12
const SHARDS = 4

/** The scenario, fixed once so that both runs see the very same records and events. */
const token = newToken()
const whale = newWallet()
const at = new Date().toISOString()
const records = Array.from({ length: 24 }, (_, i) => ChainTxMessage.parse({
  ...record({
    ...(i % 3 === 0 ? token : {}),
    wallet: i % 5 === 0 ? whale : newWallet(),
    category: (["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"] as const)[i % 4],
    usd: 50_000 + i * 90_000,
    ts: at,
    log_index: i
  }),
  price_usd: 1.5, counter_token: "0x" + "22".repeat(20), counter_symbol: "WETH", source: "internal",
  messageId: `m-${randomBytes(6).toString("hex")}`,
  id: null
}))
const events = [
  { _tag: "IndexValue", messageId: `e-${randomBytes(6).toString("hex")}`, value: 62, previous: 41, at },
  { _tag: "PickFlagged", messageId: `e-${randomBytes(6).toString("hex")}`, pick_id: 1, token: token.token, symbol: token.symbol, flagged_at: at, entry_price: 1.5, whales: 4, conviction: 70 }
].map((e) => DomainEvent.parse(e))
const alertsOf = (i: number) => [
  { name: `trade-${i}`, type: "whale_trade", params: { min_usd: 100_000 * (i % 4), side: i % 2 === 0 ? "any" : "buy" } },
  { name: `flow-${i}`, type: "exchange_flow", params: { min_usd: 500_000 + 200_000 * (i % 3) } },
  { name: `wallet-${i}`, type: "wallet_activity", params: { wallet: whale } },
  { name: `token-${i}`, type: "whale_trade", params: { token: token.symbol, min_usd: 0 } },
  { name: `index-${i}`, type: "index_cross", params: { level: 50 + (i % 2) * 20 } },
  { name: `pick-${i}`, type: "pick_flagged", params: { min_conviction: 50 + (i % 3) * 15 } }
]

/** True when every group of every shard has handled all that was published. */
const settled = (app: TestApp, shards: number) =>
  app.runtime.runPromise(Effect.gen(function* () {
    const bus = yield* Bus
    // The picks-grader too: it flags a pick on the block's buys (a domain event, `event:pick:<id>`) after the block's
    // alerts (it is deferrable), and that event's alerts are part of what the block causes.
    const groups: Array<readonly [string, string]> = [[STREAMS.chainTx, "picks-grader"]]
    for (let k = 0; k < shards; k++) {
      groups.push([STREAMS.chainTx, shards === 1 ? "alert-fanout" : `alert-fanout.${k}`])
      groups.push([STREAMS.domainEvents, shards === 1 ? "alert-events" : `alert-events.${k}`])
      groups.push([notifyStreamOf(k, shards), "notifier"])
    }
    for (const [stream, group] of groups) {
      const info = yield* bus.groupInfo(stream, group).pipe(Effect.orElseSucceed(() => null))
      if (info === null || (info.lag ?? 0) > 0 || info.pending > 0) return false
    }
    return true
  }))

/** One run: users and their alerts, the block published, and its deliveries once all is settled. */
const run = async (shards: number) => {
  const app = await startApp({ env: { ALERT_SHARDS: String(shards), DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000" } })
  try {
    for (let i = 0; i < USERS; i++) {
      const email = `shard-${i}@example.com`
      await createUser(app, { email, tier: "whale" })
      const { token: bearer } = await login(app, email)
      for (const a of alertsOf(i)) {
        const created = await call(app, "POST", "/api/alerts", { token: bearer, body: { ...a, channels: ["console"] } })
        expect(created.status, JSON.stringify(created.body)).toBe(200)
      }
    }
    await app.runtime.runPromise(Effect.gen(function* () {
      const bus = yield* Bus
      yield* bus.publishMany(STREAMS.chainTx, records)
      for (const e of events) yield* bus.publish(STREAMS.domainEvents, e)
    }))
    await waitFor(() => settled(app, shards), 60_000, 100)
    const rows = await app.query<{ email: string; user_id: string; name: string; record_key: string }>(
      `SELECT u.email, d.user_id::text AS user_id, s.name, d.record_key
         FROM alert_deliveries d JOIN users u ON u.id = d.user_id JOIN alert_subscriptions s ON s.id = d.alert_id`)
    // Each shard's index holds its own users' alerts and no one else's (over-matching would not show in the deliveries:
    // their unique key would absorb it).
    const sizes = await app.runtime.runPromise(Effect.gen(function* () {
      const fanouts = yield* AlertShardFanouts
      const out: Array<number> = []
      for (let k = 0; k < shards && shards > 1; k++) out.push((yield* fanouts.forShard(k)).index().size)
      return out
    }))
    return { rows, sizes }
  } finally {
    await app.close()
  }
}

describe("the subscription index sharded (ALERT_SHARDS)", () => {
  const apps: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const c of apps) await c().catch(() => undefined)
  })

  it(`delivers a block exactly as one shard does, with ${SHARDS} shards`, async () => {
    const { rows: one } = await run(1)
    const { rows: many, sizes } = await run(SHARDS)
    const users = new Set(many.map((r) => r.user_id))
    expect(users.size).toBe(USERS)
    expect(sizes).toEqual(Array.from({ length: SHARDS }, (_, k) => [...users].filter((u) => shardOf(Number(u), SHARDS) === k).length * alertsOf(0).length))
    const keys = (rows: ReadonlyArray<{ email: string; name: string; record_key: string }>) => rows.map((r) => `${r.email}|${r.name}|${r.record_key}`).sort()
    // Something of every kind and from every shard, else the comparison proves little.
    expect(one.length).toBeGreaterThan(USERS * 3)
    for (const prefix of ["trade-", "flow-", "wallet-", "token-", "index-", "pick-"]) expect(one.some((r) => r.name.startsWith(prefix)), prefix).toBe(true)
    expect(new Set(many.map((r) => shardOf(Number(r.user_id), SHARDS))).size).toBe(SHARDS)
    // None doubled (the unique key would refuse it; this says no shard made another's) and the same set.
    expect(new Set(keys(many)).size).toBe(many.length)
    expect(keys(many)).toEqual(keys(one))
  }, 180_000)
})
