/** Driving a whole app's block listener in tests: its settings, and what it stored and published. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { ChainStreamMessage, STREAMS } from "../../schema/streams"
import type { WhaleRecord } from "../../server/domains/chain/Types"
import { cents } from "../../server/domains/chain/Wire"
import { Bus } from "../../server/platform/infra/Bus"
import { BLOCKS } from "./chainFixture"
import { freshDatabase, realDatabaseUrl, startApp, type TestApp } from "./harness"

export const listenerEnv = (url: string): Record<string, string> => ({
  ETH_RPC_URL: url, CHAIN_START_BLOCK: String(BLOCKS[0]), CHAIN_POLL_MS: "50", CHAIN_RETRY_BASE_MS: "20", CHAIN_RETRY_MAX_MS: "200"
})

export interface Row {
  id: number; tx_hash: string; log_index: number; wallet: string; token: string; symbol: string; decimals: number | null
  category: string; amount: string; amount_raw: string; usd: number | null; price_usd: number | null
  counter_token: string | null; counter_symbol: string | null; counter_amount: string | null; venue: string | null
  block_number: number; block_hash: string; ts: Date; source: string
}
export const rowsOf = (app: TestApp) => app.query<Row>(`
  SELECT id, tx_hash, log_index, wallet, token, symbol, decimals, category, amount::text AS amount, amount_raw::text AS amount_raw,
    usd, price_usd, counter_token, counter_symbol, counter_amount::text AS counter_amount, venue, block_number, block_hash, ts, source
  FROM whale_tx ORDER BY block_number, log_index, wallet, token`)

/** A record as the listener must store it. */
export const asRow = (r: WhaleRecord): Omit<Row, "id"> => ({
  tx_hash: r.txHash, log_index: r.logIndex, wallet: r.wallet, token: r.token, symbol: r.symbol, decimals: r.decimals,
  category: r.category, amount: r.amount, amount_raw: r.amountRaw, usd: cents(r.usd), price_usd: r.priceUsd,
  counter_token: r.counterToken, counter_symbol: r.counterSymbol, counter_amount: r.counterAmount, venue: r.venue,
  block_number: r.block, block_hash: r.blockHash, ts: r.ts, source: "rpc"
})
export const sortRows = <T extends { block_number: number; log_index: number; wallet: string; token: string }>(rows: ReadonlyArray<T>) =>
  [...rows].sort((a, b) => a.block_number - b.block_number || a.log_index - b.log_index || a.wallet.localeCompare(b.wallet) || a.token.localeCompare(b.token))
export const withoutId = ({ id: _id, ...rest }: Row) => rest

export const trackWallets = (app: TestApp, wallets: ReadonlyArray<string>) =>
  app.query(`INSERT INTO tracked_wallets (address, label, cohort, source)
    SELECT a, 'fixture ' || left(a, 10), 'mid', 'custom' FROM unnest($1::text[]) AS a ON CONFLICT (address) DO NOTHING`, [wallets])

export const checkpointOf = async (app: TestApp) =>
  (await app.query<{ block_number: number; block_hash: string }>(
    "SELECT block_number, block_hash FROM chain_checkpoint WHERE name = 'block-listener'"))[0]

/** Everything on chain.tx: records and retractions, in order. */
export const messagesOf = async (app: TestApp) =>
  (await app.runtime.runPromise(Effect.flatMap(Bus, (b) => b.tail(STREAMS.chainTx, 10_000)))).map((e) => ChainStreamMessage.parse(e.payload))


/** A database that outlives one app (restarts): a fresh real database, or an embedded one on disk. */
export const persistentDeployment = async () => {
  if (realDatabaseUrl) {
    const db = await freshDatabase(realDatabaseUrl)
    return { start: (env: Record<string, string>) => startApp({ databaseUrl: db.url, env }), drop: db.drop }
  }
  const dir = mkdtempSync(join(tmpdir(), "whale-chain-db-"))
  return {
    start: (env: Record<string, string>) => startApp({ env: { ...env, EMBEDDED_DB_DIR: dir } }),
    drop: async () => rmSync(dir, { recursive: true, force: true })
  }
}
