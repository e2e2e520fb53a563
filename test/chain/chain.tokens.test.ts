/**
 * Tokens stored as unknown are read again with back-off by the caught-up block listener: one that now answers
 * symbol()/decimals() is stored with them, and its stored records get the symbol, decimals and scaled amount; one
 * that still does not is read later, and after the last allowed re-read is confirmed non-standard. Recorded
 * mainnet blocks, served by the JSON-RPC replay (the real viem path).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_REREADS, nextReadDelayMs } from "../../server/domains/chain/TokenRereads"
import { BLOCKS, chainFixtures, loadChainFixture } from "../support/chainFixture"
import { checkpointOf, listenerEnv, trackWallets } from "../support/chainApp"
import { startApp, type TestApp } from "../support/harness"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"
import { waitFor } from "../support/wait"

const fx = chainFixtures()

interface TokenRow { address: string; symbol: string; decimals: number | null; source: string; read_attempts: number; due_in_s: number | null }
const tokenRow = async (app: TestApp, address: string) =>
  (await app.query<TokenRow>(`SELECT address, symbol, decimals, source, read_attempts,
     extract(epoch FROM next_read_at - now())::float8 AS due_in_s FROM tokens WHERE address = $1`, [address]))[0]!

describe.skipIf(!fx.available)(`re-reading unknown tokens${fx.skipNote}`, () => {
  let server: RpcReplayServer
  let app: TestApp
  let unknown: Array<string> = []

  beforeAll(async () => {
    const fixture = loadChainFixture()
    server = await startRpcReplay()
    server.setHead(BLOCKS[1])
    app = await startApp({ env: { ...listenerEnv(server.url), CHAIN_TOKEN_REREAD_MS: "100" } })
    await trackWallets(app, fixture.wallets)
    await waitFor(async () => (await checkpointOf(app))?.block_number === BLOCKS[1], 60_000, 50)
    // Tokens of stored records that the replay's token list does not know: stored as unknown.
    unknown = (await app.query<{ token: string }>(
      "SELECT DISTINCT x.token FROM whale_tx x JOIN tokens t ON t.address = x.token WHERE t.source = 'unknown' ORDER BY 1")).map((r) => r.token)
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await server?.close()
  })

  it("stores an unreadable token as unknown, due for a re-read in 5 minutes", async () => {
    expect(unknown.length).toBeGreaterThanOrEqual(2)
    const row = await tokenRow(app, unknown[0]!)
    expect(row).toMatchObject({ symbol: "UNKNOWN", decimals: null, source: "unknown", read_attempts: 0 })
    expect(row.due_in_s).toBeGreaterThan(200)
    expect(row.due_in_s).toBeLessThanOrEqual(300)
  })

  it("resolves a token that answers now, and updates its stored records", async () => {
    const token = unknown[0]!
    server.addToken(token, "LATE", 6)
    await app.query("UPDATE tokens SET next_read_at = now() WHERE address = $1", [token])
    await waitFor(async () => (await tokenRow(app, token)).source === "chain", 15_000, 50)
    expect(await tokenRow(app, token)).toMatchObject({ symbol: "LATE", decimals: 6, read_attempts: 1, due_in_s: null })
    const records = await app.query<{ symbol: string; decimals: number; amount: string; raw: string }>(
      "SELECT symbol, decimals, amount::text AS amount, amount_raw::text AS raw FROM whale_tx WHERE token = $1", [token])
    expect(records.length).toBeGreaterThan(0)
    for (const r of records) {
      expect([r.symbol, r.decimals]).toEqual(["LATE", 6])
      expect(Number(r.amount)).toBeCloseTo(Number(r.raw) / 1e6, 6)
    }
  })

  it("backs off a token that still does not answer, and gives up after the last re-read", async () => {
    const token = unknown[1]!
    await app.query("UPDATE tokens SET next_read_at = now() WHERE address = $1", [token])
    await waitFor(async () => (await tokenRow(app, token)).read_attempts === 1, 15_000, 50)
    const once = await tokenRow(app, token)
    expect(once.source).toBe("unknown")
    expect(once.due_in_s! * 1000).toBeGreaterThan(nextReadDelayMs(1) - 60_000)
    expect(once.due_in_s! * 1000).toBeLessThanOrEqual(nextReadDelayMs(1))
    await app.query("UPDATE tokens SET read_attempts = $2, next_read_at = now() WHERE address = $1", [token, MAX_REREADS - 1])
    await waitFor(async () => (await tokenRow(app, token)).read_attempts === MAX_REREADS, 15_000, 50)
    expect(await tokenRow(app, token)).toMatchObject({ source: "unknown", symbol: "UNKNOWN", due_in_s: null })
  })
})
