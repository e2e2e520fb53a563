/**
 * The block listener across restarts, on recorded mainnet blocks 17173049–17173050 (JSON-RPC replay): it resumes
 * from its checkpoint without fetching or storing a block twice; a block delivered again (checkpoint behind the
 * stored records) leaves one record per movement and publishes nothing new; records stored but not published
 * before a crash are published at the next start.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { WhaleRecord } from "../../server/domains/chain/Types"
import { asRow, checkpointOf, listenerEnv, messagesOf, persistentDeployment, rowsOf, sortRows, trackWallets, withoutId } from "../support/chainApp"
import { BLOCKS, chainFixtures, keyOf, loadChainFixture, referenceRecords, type ChainFixture } from "../support/chainFixture"
import type { TestApp } from "../support/harness"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"
import { waitFor } from "../support/wait"

const fx = chainFixtures()

describe.skipIf(!fx.available)(`block listener across restarts${fx.skipNote}`, () => {
  let fixture: ChainFixture
  let server: RpcReplayServer
  let deployment: Awaited<ReturnType<typeof persistentDeployment>>
  let expected: Array<WhaleRecord>
  let app: TestApp | undefined
  const blockFetches = () => server.calls.get("eth_getBlockByNumber") ?? 0
  const published = async (a: TestApp, n: number) =>
    (await a.query<{ p: boolean }>("SELECT published_at IS NOT NULL AS p FROM chain_blocks WHERE number = $1", [n]))[0]?.p === true

  beforeAll(async () => {
    fixture = loadChainFixture()
    server = await startRpcReplay()
    expected = await referenceRecords(server.url, fixture.wallets)
    deployment = await persistentDeployment()
  }, 60_000)
  afterAll(async () => {
    await app?.close()
    await server?.close()
    await deployment?.drop()
  })

  it("resumes from its checkpoint after a restart mid-range: each block fetched and stored once", async () => {
    server.setHead(BLOCKS[0] - 1)
    app = await deployment.start(listenerEnv(server.url))
    await trackWallets(app, fixture.wallets)
    server.setHead(BLOCKS[0])
    await waitFor(async () => (await checkpointOf(app!))?.block_number === BLOCKS[0] && (await published(app!, BLOCKS[0])), 60_000, 50)
    const firstRows = await rowsOf(app)
    expect(firstRows.map(withoutId)).toEqual(sortRows(expected.filter((r) => r.block === BLOCKS[0]).map(asRow)))
    await app.close()
    app = undefined

    const fetchesBefore = blockFetches()
    server.setHead(BLOCKS[1])
    app = await deployment.start(listenerEnv(server.url))
    await waitFor(async () => (await checkpointOf(app!))?.block_number === BLOCKS[1] && (await published(app!, BLOCKS[1])), 60_000, 50)
    expect(blockFetches() - fetchesBefore).toBe(1)
    const rows = await rowsOf(app)
    expect(rows.map(withoutId)).toEqual(sortRows(expected.map(asRow)))
    expect(rows.filter((r) => r.block_number === BLOCKS[0])).toEqual(firstRows)
    // This life published the second block's records only.
    expect((await messagesOf(app)).map((m) => m.messageId)).toEqual(rows.filter((r) => r.block_number === BLOCKS[1]).map(keyOf))
  }, 180_000)

  it("leaves one record per movement when a block is delivered again, and publishes what a crash left unpublished", async () => {
    const before = await rowsOf(app!)
    await app!.close()
    app = undefined
    // As if the last commit's checkpoint were lost, and the publication of the first block cut short by a crash.
    const hash = fixture.blockHash.get(BLOCKS[0])!
    const maintenance = await deployment.start({ WHALE_ROLES: "http" })
    await maintenance.query("UPDATE chain_checkpoint SET block_number = $1, block_hash = $2 WHERE name = 'block-listener'", [BLOCKS[0], hash])
    await maintenance.query("UPDATE chain_blocks SET published_at = NULL WHERE number = $1", [BLOCKS[0]])
    await maintenance.close()

    const fetchesBefore = blockFetches()
    app = await deployment.start(listenerEnv(server.url))
    await waitFor(async () => (await checkpointOf(app!))?.block_number === BLOCKS[1] && (await published(app!, BLOCKS[0])), 60_000, 50)
    expect(blockFetches() - fetchesBefore).toBe(1)
    expect(await rowsOf(app)).toEqual(before)
    const firstBlock = before.filter((r) => r.block_number === BLOCKS[0])
    expect(firstBlock.length).toBeGreaterThan(0)
    // The unpublished block's records are published again (consumers are idempotent on messageId); the block
    // delivered twice adds nothing.
    await waitFor(async () => (await messagesOf(app!)).length >= firstBlock.length, 10_000)
    expect((await messagesOf(app)).map((m) => m.messageId)).toEqual(firstBlock.map(keyOf))
  }, 180_000)
})
