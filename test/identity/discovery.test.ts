/**
 * Whale discovery (issue 28 part 4) against a replayed node: mainnet blocks 17173049–17173050 served over JSON-RPC
 * (test/support/rpcReplay.ts), read through the real viem source, each block through the identity engine and then
 * discovery, as the listener's taps and the whale-discovery actor run them; balances (balanceOf, eth_getBalance)
 * answered by the replay for the candidates. On a database of its own per mode (real PostgreSQL with DATABASE_URL,
 * else embedded PGlite).
 *
 * The large moves of these blocks at WHALE_MIN_USD=50,000 (found by the rule, checked by hand in the logs): USDT
 * sent by 0xa69b… ($600K) to 0x3a3b…, USDT sent by 0xb3c8… ($109K), USDC sold by 0x7cd9… ($111K), and smaller ones;
 * the USDC/USDT pool 0x3416… logged and is no candidate. 0x3a3b… is called an exchange by an operator here: the
 * identity service's class keeps it out.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeRpcSource } from "../../server/domains/chain/RpcSource"
import type { ChainSourceShape } from "../../server/domains/chain/Source"
import type { ChainBlock, RawLog } from "../../server/domains/chain/Types"
import { WhaleDiscovery } from "../../server/domains/identity/Discovery"
import { WalletIdentity } from "../../server/domains/identity/WalletIdentity"
import { BLOCKS, chainFixtures } from "../support/chainFixture"
import { startServices } from "../support/serviceTest"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"

const fx = chainFixtures()
const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
const USDT = "0xdac17f958d2ee523a2206206994597c13d831ec7"
const MEGA = "0xa69babef1ca67a37ffaf7a485dfff3382056e78c" // sent $600K USDT in 17173050
const LARGE = "0xb3c839dbde6b96d37c56ee4f9dad3390d49310aa" // sent $109K USDT in 17173049
const MID = "0x7cd9ffcd9d31bb41ea8187576f562931db1451f2" // sold $111K USDC in 17173050
const SMALL = "0x45f46dbf5924ad21b7e41ce359f401492e7f6ef5" // received $109K USDT in 17173049
const CALLED_EXCHANGE = "0x3a3bbaf78361a8510cc2a4c1776d501011f677d9" // received $600K USDT
const POOL = "0x3416cf6c708da44db2624d63ea0aaef7113527c6"
const DAY = 86_400_000

type Services = WalletIdentity | WhaleDiscovery | SqlClient.SqlClient

describe.skipIf(!fx.available)(`whale discovery on a replayed node${fx.skipNote}`, () => {
  let server: RpcReplayServer
  let source: ChainSourceShape
  const blocks: Array<{ block: ChainBlock; logs: ReadonlyArray<RawLog> }> = []
  const cleanups: Array<() => Promise<void>> = []

  /** The services on a fresh database with these settings. */
  const open = async (settings: Record<string, string>) => {
    const env: Record<string, string> = { WHALE_MIN_USD: "50000", WHALE_MIN_HOLDINGS_USD: "1000000", WHALE_COHORT_MEGA_USD: "50000000", WHALE_COHORT_LARGE_USD: "5000000", ...settings }
    const { runtime, close } = await startServices(WhaleDiscovery.Default.pipe(Layer.provideMerge(WalletIdentity.Default)), { env })
    cleanups.push(close)
    const run = <A, E>(e: Effect.Effect<A, E, Services>) => runtime.runPromise(e)
    const discovery = <A, E>(f: (d: WhaleDiscovery) => Effect.Effect<A, E>) => run(Effect.flatMap(WhaleDiscovery, f))
    const query = <T extends object>(text: string) => run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text)).pipe(Effect.map((r) => [...r])))
    /** Both blocks as the listener's taps and the actor see them: identity first, then discovery (through its queue). */
    const feed = () => run(Effect.gen(function* () {
      const identity = yield* WalletIdentity
      const d = yield* WhaleDiscovery
      const out = []
      for (const { block, logs } of blocks) {
        yield* identity.observe(block, logs, source)
        yield* d.enqueue({ block, logs, source })
        const queued = yield* d.next(1_000)
        if (Option.isNone(queued)) throw new Error(`block ${block.number} was not queued`)
        out.push(yield* d.handle(queued.value))
      }
      return out
    }))
    const tracked = () => query<{ address: string; cohort: string; source: string; active: boolean }>(
      "SELECT address, cohort, source, active FROM tracked_wallets ORDER BY address")
    return { run, discovery, query, feed, tracked }
  }

  beforeAll(async () => {
    server = await startRpcReplay()
    source = await Effect.runPromise(Effect.scoped(makeRpcSource({ url: server.url })))
    for (const n of BLOCKS) {
      blocks.push({ block: await Effect.runPromise(source.getBlock(n)), logs: await Effect.runPromise(source.getLogs({ fromBlock: n, toBlock: n })) })
    }
    server.setBalance(MEGA, USDC, 60_000_000n * 10n ** 6n)
    server.setBalance(LARGE, USDT, 10_000_000n * 10n ** 6n)
    server.setBalance(MID, "eth", 2_000n * 10n ** 18n)
    server.setBalance(SMALL, USDC, 100n * 10n ** 6n)
  }, 60_000)
  afterAll(async () => {
    for (const c of cleanups) await c()
    await server?.close()
  })

  it("auto: finds candidates, measures them, joins the large ones with the reason up to the cap, cohorts by size; idle ones leave", async () => {
    const s = await open({ WHALE_DISCOVERY: "auto", WHALE_MAX_TRACKED: "2", WHALE_IDLE_DAYS: "30" })
    await s.run(Effect.flatMap(WalletIdentity, (i) => i.correct({ address: CALLED_EXCHANGE, action: "set", field: "class", value: "exchange", exchange: "Acme", reason: "Acme's deposit wallet" }, "ops")))
    const calls = server.calls.get("eth_getBalance") ?? 0
    const [first, second] = await s.feed()
    expect(first!.moves.map((m) => m.address)).toEqual(expect.arrayContaining([LARGE, SMALL]))
    expect(second!.moves.map((m) => m.address)).toEqual(expect.arrayContaining([MEGA, CALLED_EXCHANGE, MID, POOL]))
    expect(server.calls.get("eth_getBalance")! - calls).toBeGreaterThanOrEqual(3)

    const rows = await s.discovery((d) => d.candidates())
    const by = new Map(rows.map((r) => [r.address, r]))
    expect(by.has(CALLED_EXCHANGE)).toBe(false)
    expect(by.has(POOL)).toBe(false)
    expect(by.get(LARGE)).toMatchObject({ status: "joined", cohort: "large", holdings_usd: 10_000_000 })
    expect(by.get(LARGE)!.reason).toMatch(/^sent \$109K USDT in block 17173049; holds \$10M$/)
    expect(by.get(SMALL)).toMatchObject({ status: "below", holdings_usd: 100 })
    // The cap (2): LARGE joined in the first block, one of MEGA and MID in the second, the other waits.
    const later = [by.get(MEGA)!, by.get(MID)!]
    expect(later.map((r) => r.status).sort()).toEqual(["joined", "pending"])
    expect(later.find((r) => r.status === "pending")!.note).toBe("the tracked set is full (WHALE_MAX_TRACKED=2)")
    expect(by.get(MEGA)).toMatchObject({ cohort: "mega", reason: "sent $600K USDT in block 17173050; holds $60M" })
    expect(by.get(MID)!.cohort).toBe("mid")
    expect(by.get(MID)!.reason).toMatch(/^sold \$111K USDC in block 17173050; holds \$3\.\dM$/)
    const discovered = (await s.tracked()).filter((w) => w.source === "discovered" && w.active)
    expect(discovered).toHaveLength(2)
    expect(discovered.map((w) => w.address)).toContain(LARGE)
    expect(await s.run(Effect.flatMap(WalletIdentity, (i) => i.classOf(LARGE)))).toBe("whale")

    // A day later: measured again, the cohort follows the size.
    const t0 = blocks[1]!.block.timestamp * 1000
    server.setBalance(LARGE, USDT, 80_000_000n * 10n ** 6n)
    const upkeep = await s.discovery((d) => d.maintain(t0 + DAY + 3_600_000))
    expect(upkeep.remeasured).toEqual(expect.arrayContaining([LARGE, MEGA, MID]))
    expect((await s.tracked()).find((w) => w.address === LARGE)).toMatchObject({ cohort: "mega", active: true })
    expect((await s.discovery((d) => d.candidates("joined"))).find((r) => r.address === LARGE)!.reason).toMatch(/holds \$80M$/)

    // Thirty-one days without activity: the joined ones leave (rows and history kept), the waiting one takes the room.
    const waiting = later.find((r) => r.status === "pending")!.address
    const gone = await s.discovery((d) => d.maintain(t0 + 31 * DAY))
    expect(gone.left.sort()).toEqual([LARGE, later.find((r) => r.status === "joined")!.address].sort())
    expect(gone.joined).toEqual([waiting])
    const after = new Map((await s.discovery((d) => d.candidates())).map((r) => [r.address, r]))
    expect(after.get(LARGE)).toMatchObject({ status: "left" })
    expect(after.get(LARGE)!.note).toMatch(/^no activity since 2023-05-02 \(WHALE_IDLE_DAYS=30\)$/)
    expect((await s.tracked()).filter((w) => w.source === "discovered").map((w) => [w.address, w.active]).sort())
      .toEqual([[LARGE, false], [later.find((r) => r.status === "joined")!.address, false], [waiting, true]].sort())
  }, 120_000)

  it("review: candidates wait for an operator; approve joins, reject keeps one out for good", async () => {
    server.setBalance(LARGE, USDT, 10_000_000n * 10n ** 6n)
    const s = await open({ WHALE_DISCOVERY: "review", WHALE_MAX_TRACKED: "10" })
    await s.feed()
    const pending = await s.discovery((d) => d.candidates("pending"))
    expect(pending.map((r) => r.address).sort()).toEqual([LARGE, MEGA, MID].sort())
    expect(pending.every((r) => r.note === "waits for an operator's approval")).toBe(true)
    expect((await s.tracked()).filter((w) => w.source === "discovered")).toEqual([])
    // The upkeep never joins in review mode.
    expect((await s.discovery((d) => d.maintain(blocks[1]!.block.timestamp * 1000))).joined).toEqual([])

    const approved = await s.discovery((d) => d.approve(LARGE, "ops-anna"))
    expect(approved).toMatchObject({ status: "joined", decided_by: "ops-anna", cohort: "large" })
    expect((await s.tracked()).filter((w) => w.source === "discovered").map((w) => w.address)).toEqual([LARGE])
    const rejected = await s.discovery((d) => d.reject(MEGA, "ops-anna", "a custodian's omnibus wallet"))
    expect(rejected).toMatchObject({ status: "rejected", note: "a custodian's omnibus wallet" })
    const refused = await s.run(Effect.flatMap(WhaleDiscovery, (d) => d.approve(MEGA, "ops-bob")).pipe(Effect.flip))
    expect(refused._tag).toBe("CandidateRefused")
    const missing = await s.run(Effect.flatMap(WhaleDiscovery, (d) => d.approve("0x" + "12".repeat(20), "ops-bob")).pipe(Effect.flip))
    expect(missing._tag).toBe("CandidateNotFound")
    // Seen again: the rejected one stays rejected, the joined one stays joined.
    await s.feed()
    const again = new Map((await s.discovery((d) => d.candidates())).map((r) => [r.address, r.status]))
    expect([again.get(MEGA), again.get(LARGE), again.get(MID)]).toEqual(["rejected", "joined", "pending"])
  }, 120_000)

  it("off: nothing is queued from the listener's tap", async () => {
    const s = await open({ WHALE_DISCOVERY: "off" })
    const queued = await s.discovery((d) => Effect.zipRight(d.enqueue({ ...blocks[0]!, source }), d.next(50)))
    expect(Option.isNone(queued)).toBe(true)
    // A source that cannot read balances (demo, replay) queues nothing either, whatever the mode.
    const auto = await open({ WHALE_DISCOVERY: "auto" })
    const { getBalances: _, ...noBalances } = source
    const none = await auto.discovery((d) => Effect.zipRight(d.enqueue({ ...blocks[0]!, source: noBalances }), d.next(50)))
    expect(Option.isNone(none)).toBe(true)
    expect(await auto.discovery((d) => d.candidates())).toEqual([])
  }, 120_000)
})
