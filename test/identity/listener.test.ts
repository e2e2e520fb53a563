/**
 * The identity engine in the listener's path: a whole app follows the JSON-RPC replay of mainnet blocks
 * 17173049–17173050, and its block tap classifies every block as it is stored — the sandwich bots are in
 * wallet_identity as `mev_bot` with their evidence, and the tap's time per block is on /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BLOCKS, chainFixtures } from "../support/chainFixture"
import { checkpointOf, listenerEnv } from "../support/chainApp"
import { startApp, type TestApp } from "../support/harness"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"
import { waitFor } from "../support/wait"

const fx = chainFixtures()
const BOTS = [
  "0x1b2137cf6a090da28c36f6081d12ecccad0e5179", "0x446d722624ae190a16fd2be14ce52a9e4f9b6ae3",
  "0x6b75d8af000000e20b7a7ddf000ba900b4009a80", "0xae2fc483527b8ef99eb5d9b44875f005ba1fae13"
]

describe.skipIf(!fx.available)(`identity in the block listener's path${fx.skipNote}`, () => {
  let server: RpcReplayServer
  let app: TestApp
  const classes = () => app.query<{ address: string; class: string; class_source: string; kind: string }>(
    `SELECT address, class, class_source, kind FROM wallet_identity WHERE class = 'mev_bot' ORDER BY address`)

  beforeAll(async () => {
    server = await startRpcReplay()
    app = await startApp({ env: listenerEnv(server.url) })
    await waitFor(async () => (await checkpointOf(app))?.block_number === BLOCKS[1] && (await classes()).length === BOTS.length, 60_000, 50)
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await server?.close()
  })

  it("stores the sandwich bots of both blocks as mev_bot, with their kind and the sandwich evidence", async () => {
    expect(await classes()).toEqual(BOTS.map((address, i) => ({ address, class: "mev_bot", class_source: "rule", kind: i % 2 === 0 ? "contract" : "eoa" })))
    const evidence = await app.query<{ address: string; hits: number; first_block: number; last_block: number }>(
      `SELECT address, hits, first_block, last_block FROM wallet_identity_evidence WHERE rule = 'sandwich' ORDER BY address`)
    expect(evidence).toEqual([
      { address: BOTS[0], hits: 1, first_block: BLOCKS[1], last_block: BLOCKS[1] }, { address: BOTS[1], hits: 1, first_block: BLOCKS[1], last_block: BLOCKS[1] },
      { address: BOTS[2], hits: 2, first_block: BLOCKS[0], last_block: BLOCKS[1] }, { address: BOTS[3], hits: 2, first_block: BLOCKS[0], last_block: BLOCKS[1] }
    ])
    const routers = await app.query<{ n: number }>(`SELECT count(*)::int AS n FROM wallet_identity WHERE class = 'router'`)
    expect(routers[0]!.n).toBeGreaterThanOrEqual(14)
    expect(await app.query(`SELECT address FROM wallet_identity WHERE class = 'whale'`)).toEqual([])
  })

  it("reports the tap's time per block on /metrics", async () => {
    const text = await (await fetch(`${app.metricsUrl}/metrics`)).text()
    const count = /chain_tap_seconds_count\{tap="identity"\} (\d+)/.exec(text)
    expect(Number(count?.[1])).toBeGreaterThanOrEqual(2)
  })
})
