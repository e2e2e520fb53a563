/**
 * A reorg of depth 3 while the console and the consumers are live (issue 18 §2). The block listener follows the
 * JSON-RPC replay (recorded mainnet blocks 17173049–17173050, then synthetic blocks repeating their transactions
 * under new hashes, timed two hours ago so they count in the 24-hour views); a signed-in console client follows
 * `feed:trades` and `top-tokens` over the WebSocket; every consumer of `chain.tx` runs in the app. The chain then
 * switches to a longer branch that replaces the last three blocks stored, with none of their transactions.
 *
 * Afterwards: the orphaned records are gone from the database and their blocks replaced; the console client got a
 * retraction for every orphaned record (after the record itself); the analytics caches saw every retraction and the
 * console's top tokens equal what the database gives after the rollback, which is what they were before the three
 * blocks came; every consumer group of `chain.tx` handled everything (no lag, nothing pending, no dead letter).
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { STREAMS } from "../../schema/streams"
import { topTokensOf } from "../../server/domains/analytics/Analytics"
import { Analytics } from "../../server/domains/analytics/Analytics"
import { recordId } from "../../schema/records"
import { createUser, login } from "../support/auth"
import { checkpointOf, listenerEnv, trackWallets } from "../support/chainApp"
import { BLOCKS, chainFixtures, loadChainFixture } from "../support/chainFixture"
import { startApp, type TestApp } from "../support/harness"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"
import { waitFor } from "../support/wait"
import { openSocket, type Frame, type TestSocket } from "../support/ws"

const fx = chainFixtures()
const DEPTH = 3
/**
 * Synthetic blocks after the recording: the chain the listener follows, the branch's extra block, and two more for
 * the way back (the original chain growing longer than the branch again).
 */
const EXTEND = 8

describe.skipIf(!fx.available)(`a reorg of depth ${DEPTH} while the console and the consumers are live${fx.skipNote}`, () => {
  let server: RpcReplayServer
  let app: TestApp
  let socket: TestSocket

  beforeAll(async () => {
    const fixture = loadChainFixture()
    server = await startRpcReplay({ extend: EXTEND, extendFrom: Math.floor(Date.now() / 1000) - 2 * 3600 })
    server.setHead(BLOCKS[0] - 1)
    app = await startApp({ env: { ...listenerEnv(server.url), WS_ANON_DELAY_MS: "0", ANALYTICS_CACHE_SECONDS: "2", CONSOLE_SNAPSHOT_MS: "300" } })
    await trackWallets(app, fixture.wallets)
    await createUser(app, { email: "reorg-console@example.com" })
    const { token } = await login(app, "reorg-console@example.com")
    socket = await openSocket(app, { headers: { authorization: `Bearer ${token}` } })
    for (const topic of ["feed:trades", "top-tokens"]) {
      socket.send({ type: "subscribe", topic })
      await socket.waitFor((f) => f.type === "subscribed" && f.topic === topic, 30_000)
    }
  }, 120_000)
  afterAll(async () => {
    await socket?.close()
    await app?.close()
    await server?.close()
  })

  const reachCheckpoint = (n: number, hash?: string) =>
    waitFor(async () => {
      const cp = await checkpointOf(app)
      return Number(cp?.block_number) === n && (hash === undefined || cp?.block_hash === hash) &&
        (await app.query("SELECT 1 FROM chain_blocks WHERE published_at IS NULL")).length === 0
    }, 60_000, 50)
  /** The top tokens of the last 24 hours computed now, from the database (no cache), as the console's snapshot has them. */
  const topFromDatabase = async () =>
    topTokensOf("24H", await app.runtime.runPromise(Effect.flatMap(Analytics, (a) => a.tokenWindow("24H"))), 10)
  const consoleTop = () => socket.data("top-tokens").filter((f) => f.data.top.timeframe === "24H").at(-1)?.data.top
  const consoleShows = async (expected: unknown) => JSON.stringify(consoleTop()) === JSON.stringify(expected)
  const rowsIn = (from: number, to: number) =>
    app.query<{ tx_hash: string; log_index: number; wallet: string; token: string; block_number: string; block_hash: string }>(
      "SELECT tx_hash, log_index, wallet, token, block_number::text, block_hash FROM whale_tx WHERE block_number BETWEEN $1 AND $2", [from, to])
  const retractionsSeen = async () => Number(/^analytics_retractions_total(?:\{\})? (\d+)/m.exec(await (await fetch(`${app.metricsUrl}/metrics`)).text())?.[1] ?? 0)

  it("rolls the orphaned records back, retracts each on the console, and the consumers' state follows", async () => {
    const tip = server.numbers.at(-1)! - 3 // the last canonical block the listener takes; the branch is one longer
    const forkAt = tip - DEPTH // the last block both chains share

    // The chain up to the fork: the console's top tokens as the database has them.
    server.setHead(forkAt)
    await reachCheckpoint(forkAt)
    const before = await topFromDatabase()
    await waitFor(() => consoleShows(before), 30_000, 50).catch((e) => {
      throw new Error(`${e}: console ${JSON.stringify(consoleTop())}, database ${JSON.stringify(before)}`)
    })

    // Three more blocks, with records, seen by the console.
    server.setHead(tip)
    await reachCheckpoint(tip)
    const orphans = await rowsIn(forkAt + 1, tip)
    const orphanIds = orphans.map(recordId)
    const orphanHashes = new Set(orphans.map((r) => r.block_hash))
    expect(orphans.length).toBeGreaterThan(0)
    expect(new Set(orphans.map((r) => Number(r.block_number)))).toEqual(new Set([forkAt + 1, forkAt + 2, forkAt + 3]))
    const withOrphans = await topFromDatabase()
    expect(withOrphans).not.toEqual(before)
    await waitFor(() => consoleShows(withOrphans), 30_000, 50)
    const feedIds = () => new Set(socket.data("feed:trades").filter((f) => f.data.kind !== "retraction").map((f) => recordId(f.data)))
    await waitFor(() => orphanIds.every((id) => feedIds().has(id)), 30_000, 50)
    const retractionsBefore = await retractionsSeen()

    // The reorg: a longer branch from the fork, without the orphaned blocks' transactions.
    const branch = server.branch(forkAt + 1, DEPTH + 1)
    const reorgAt = Date.now()
    await reachCheckpoint(tip + 1, branch.at(-1))
    const retracted = () => socket.data("feed:trades").filter((f) => f.data.kind === "retraction")
    await waitFor(() => orphanIds.every((id) => retracted().some((f) => recordId(f.data) === id)), 30_000, 50).catch((e) => {
      throw new Error(`${e}: ${retracted().length} retractions of ${orphanIds.length} orphaned records`)
    })
    const retractedMs = Date.now() - reorgAt

    // The database: the orphans gone, the branch's blocks in place of theirs.
    expect(await rowsIn(forkAt + 1, tip + 1)).toEqual([])
    const blocks = await app.query<{ number: string; hash: string }>("SELECT number::text, hash FROM chain_blocks WHERE number > $1 ORDER BY number", [forkAt])
    expect(blocks.map((b) => b.hash)).toEqual(branch)
    expect(blocks.some((b) => orphanHashes.has(b.hash))).toBe(false)

    // The console: each orphaned record retracted once, after the record itself, naming it and its block.
    const frames = socket.data("feed:trades")
    const position = (match: (f: Frame) => boolean) => frames.findIndex(match)
    for (const r of orphans) {
      const id = recordId(r)
      const shown = position((f) => f.data.kind !== "retraction" && recordId(f.data) === id)
      const gone = frames.filter((f) => f.data.kind === "retraction" && recordId(f.data) === id)
      expect(gone, id).toHaveLength(1)
      expect(gone[0]!.data).toMatchObject({ block: Number(r.block_number), reason: "reorg" })
      expect(position((f) => f === gone[0])).toBeGreaterThan(shown)
    }
    const strayRetractions = retracted().filter((f) => !orphanIds.includes(recordId(f.data))).length
    expect(strayRetractions).toBe(0)

    // The consumers: the analytics caches saw every retraction, and the console's top tokens are the database's after
    // the rollback — the same as before the three blocks came.
    await waitFor(async () => (await retractionsSeen()) - retractionsBefore >= orphans.length, 30_000, 50)
    const after = await topFromDatabase()
    expect(after).toEqual(before)
    await waitFor(() => consoleShows(after), 30_000, 50).catch((e) => {
      throw new Error(`${e}: console ${JSON.stringify(consoleTop())}, database ${JSON.stringify(after)}`)
    })
    // Every consumer group of chain.tx took the records and their retractions: running, nothing pending or lagging.
    const registry = await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.snapshot))
    const consumers = registry.filter((a) => a.stream === STREAMS.chainTx)
    expect(consumers.length).toBeGreaterThan(0)
    await waitFor(async () => {
      const now = await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.snapshot))
      return now.filter((a) => a.stream === STREAMS.chainTx).every((a) => a.lag === 0 && a.pending === 0)
    }, 30_000, 100)
    const settled = (await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.snapshot))).filter((a) => a.stream === STREAMS.chainTx)
    for (const a of settled) expect(a, JSON.stringify(a)).toMatchObject({ state: "running", deadLetters: 0, lag: 0, pending: 0 })
    const listener = (await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.get("block-listener"))))!
    expect(listener, JSON.stringify(listener)).toMatchObject({ state: "running", restarts: 0 })

    const analyticsRetractions = (await retractionsSeen()) - retractionsBefore

    // And back: the original chain grows longer than the branch. The branch's blocks (no records) are rolled back, the
    // orphaned records come back under the same ids, and the console and the consumers take them again.
    server.clearReorgs()
    server.setHead(tip + 2)
    await reachCheckpoint(tip + 2)
    const back = await rowsIn(forkAt + 1, tip)
    expect(back.map(recordId).sort()).toEqual([...orphanIds].sort())
    const shownAgain = () => {
      const lastRetraction = frames.lastIndexOf(retracted().at(-1)!)
      return new Set(socket.data("feed:trades").slice(lastRetraction + 1).filter((f) => f.data.kind !== "retraction").map((f) => recordId(f.data)))
    }
    await waitFor(() => orphanIds.every((id) => shownAgain().has(id)), 30_000, 50).catch((e) => {
      throw new Error(`${e}: ${orphanIds.filter((id) => !shownAgain().has(id)).length} of ${orphanIds.length} not shown again`)
    })
    const withThemAgain = await topFromDatabase()
    expect(withThemAgain).not.toEqual(before)
    await waitFor(() => consoleShows(withThemAgain), 30_000, 50).catch((e) => {
      throw new Error(`${e}: console ${JSON.stringify(consoleTop())}, database ${JSON.stringify(withThemAgain)}`)
    })
    await waitFor(async () => {
      const now = await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.snapshot))
      return now.filter((a) => a.stream === STREAMS.chainTx).every((a) => a.lag === 0 && a.pending === 0 && a.state === "running")
    }, 30_000, 100)

    console.log(`[fault reorg] depth ${DEPTH} (blocks ${forkAt + 1}..${tip} replaced, new tip ${tip + 1}) · orphaned records ${orphans.length} · ` +
      `retractions at the console ${retracted().length} (missing 0, stray ${strayRetractions}), all within ${retractedMs} ms of the switch · ` +
      `analytics retractions ${analyticsRetractions} · console top tokens back to the pre-reorg state · ` +
      `consumers of chain.tx ${settled.map((a) => a.name).join(", ")}: lag 0, pending 0, dead letters 0 · ` +
      `back to the original chain (depth ${DEPTH + 1}): ${back.length} records again, each shown again at the console, top tokens with them again`)
  }, 110_000)
})
