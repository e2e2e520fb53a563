/**
 * Following new heads by subscription on a WebSocket node (`eth_subscribe newHeads`), with polling as the fallback:
 * the recorded mainnet blocks served over ws:// by the JSON-RPC replay. A head pushed by the node is taken at once
 * (measured as `via="subscription"`); with the subscription silent, polling still takes the next block
 * (`via="polling"`); a dropped socket ends the subscription and the listener subscribes again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BLOCKS, chainFixtures, loadChainFixture } from "../support/chainFixture"
import { checkpointOf, listenerEnv, trackWallets } from "../support/chainApp"
import { startApp, type TestApp } from "../support/harness"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"
import { waitFor } from "../support/wait"

const fx = chainFixtures()

/** The `_count` of chain_head_publish_seconds for one `via` (0 when absent). */
const observed = async (app: TestApp, via: string) => {
  const text = await (await fetch(`${app.metricsUrl}/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`chain_head_publish_seconds_count{via="${via}"}`))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

describe.skipIf(!fx.available)(`new heads over WebSocket${fx.skipNote}`, () => {
  let server: RpcReplayServer
  let app: TestApp

  beforeAll(async () => {
    const fixture = loadChainFixture()
    server = await startRpcReplay()
    server.setHead(BLOCKS[0] - 1)
    // Polling every 8 s: a block taken sooner after its head was pushed was woken by the subscription (a shorter poll
    // lost that race on a loaded machine, the pushed head handled after the next poll).
    app = await startApp({ env: { ...listenerEnv(server.wsUrl), CHAIN_POLL_MS: "8000", CHAIN_CONFIRMATIONS: "0" } })
    await trackWallets(app, fixture.wallets)
    await waitFor(() => (server.calls.get("eth_subscribe") ?? 0) >= 1, 30_000)
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await server?.close()
  })

  it("takes a head the node pushes, measured as seen by subscription", async () => {
    server.setHead(BLOCKS[0])
    await waitFor(async () => (await checkpointOf(app))?.block_number === BLOCKS[0], 30_000, 20)
    await waitFor(async () => (await observed(app, "subscription")) === 1, 30_000)
    expect(await observed(app, "polling")).toBe(0)
  })

  it("falls back to polling while the subscription is silent", async () => {
    server.muteHeads(true)
    server.setHead(BLOCKS[1])
    await waitFor(async () => (await checkpointOf(app))?.block_number === BLOCKS[1], 30_000, 20)
    await waitFor(async () => (await observed(app, "polling")) === 1, 30_000)
    expect(await observed(app, "subscription")).toBe(1)
  })

  it("subscribes again after the socket is dropped", async () => {
    server.muteHeads(false)
    const before = server.calls.get("eth_subscribe") ?? 0
    server.dropSockets()
    await waitFor(() => (server.calls.get("eth_subscribe") ?? 0) > before, 30_000, 50)
    // Still serving: the head is read and the checkpoint holds.
    await waitFor(async () => (await checkpointOf(app))?.block_number === BLOCKS[1], 30_000)
  })
})
