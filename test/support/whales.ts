/**
 * Stored whale data for analytics tests: a quiet chain (the demo listener never reaches its first block, so only
 * the rows a test writes exist), four tracked wallets of known cohorts, whale_tx rows written the way the block
 * listener writes them (one INSERT … SELECT FROM unnest per batch), and a whale-tier user with an API key.
 */
import { createUser, login, bearer } from "./auth"
import type { TestApp } from "./harness"

/** Environment that keeps the demo chain from ingesting anything. */
export const QUIET_CHAIN = { CHAIN_START_BLOCK: "1000000000000", CHAIN_POLL_MS: "60000" } as const

export const HOUR = 3_600_000
export const DAY = 86_400_000

export const TOKENS = {
  WETH: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
  WBTC: "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599",
  USDC: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
  UNI: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984",
  LINK: "0x514910771af9ca656af840dff83e8264ecf986ca",
  PEPE: "0x6982508145454ce325ddbe47a25d4ec3d2311933"
} as const
export type Sym = keyof typeof TOKENS

export const W = {
  W1: "0x1111111111111111111111111111111111111111",
  W2: "0x2222222222222222222222222222222222222222",
  W3: "0x3333333333333333333333333333333333333333",
  W4: "0x4444444444444444444444444444444444444444"
} as const

/** Deactivates the seeded wallets and tracks W1 (mega), W2 (large), W3 (mid), W4 (small). */
export const trackTestWallets = async (app: Pick<TestApp, "query">) => {
  await app.query("UPDATE tracked_wallets SET active = false")
  await app.query(
    `INSERT INTO tracked_wallets (address, label, cohort, source)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
     ON CONFLICT (address) DO UPDATE SET label = EXCLUDED.label, cohort = EXCLUDED.cohort, active = true`,
    [Object.values(W), ["Alpha Whale", "Beta Fund", "Gamma Trader", "Delta Small"], ["mega", "large", "mid", "small"], ["seed", "seed", "seed", "seed"]]
  )
}

export interface Tx {
  readonly wallet: string
  readonly token: Sym
  readonly category: "dex_buy" | "dex_sell" | "exchange_deposit" | "exchange_withdraw" | "exchange_housekeeping"
  readonly usd: number | null
  readonly at: number
  readonly source?: "rpc" | "replay" | "demo" | "internal"
}

let serial = 0

/** Inserts the rows in one statement (block number and hash follow from the time); returns their ids. */
export const insertTx = async (app: Pick<TestApp, "query">, rows: ReadonlyArray<Tx>) => {
  const n = rows.map(() => ++serial)
  const block = rows.map((r) => Math.floor(r.at / 12_000))
  const inserted = await app.query<{ id: number }>(
    `INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, category, amount, amount_raw, usd, price_usd, counter_symbol,
       venue, block_number, block_hash, ts, source)
     SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::numeric[],
       $9::numeric[], $10::numeric[], $11::text[], $12::text[], $13::int8[], $14::text[], $15::timestamptz[], $16::text[])
     RETURNING id`,
    [
      n.map((i) => `0xtest${i.toString(16).padStart(10, "0")}`), rows.map(() => 0), rows.map((r) => r.wallet),
      rows.map((r) => TOKENS[r.token]), rows.map((r) => r.token), rows.map((r) => r.category), rows.map(() => "1.5"),
      rows.map(() => "1500000000000000000"), rows.map((r) => r.usd), rows.map((r) => (r.usd === null ? null : r.usd / 1.5)),
      rows.map((r) => (r.category.startsWith("dex") ? "USDC" : null)), rows.map((r) => (r.category.startsWith("dex") ? "uniswap" : "binance")),
      block, block.map((b) => `0xblock${b}`), rows.map((r) => new Date(r.at).toISOString()), rows.map((r) => r.source ?? "rpc")
    ]
  )
  return inserted.map((r) => Number(r.id))
}

/** A whale-tier user with one API key; returns the key and the user's id. */
export const whaleWithKey = async (app: TestApp, email: string, tier = "whale") => {
  const user = await createUser(app, { email, tier })
  const { token } = await login(app, email)
  const res = await fetch(`${app.url}/api/keys/create`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(token) },
    body: JSON.stringify({ name: "test key" })
  })
  if (res.status !== 200) throw new Error(`key creation failed: ${res.status} ${await res.text()}`)
  const body = (await res.json()) as { key: string; prefix: string }
  return { key: body.key, prefix: body.prefix, userId: user.id, token }
}

export const dayStart = (ms: number) => Math.floor(ms / DAY) * DAY
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * Ten records around `now` (see the tests for the answers worked out by hand):
 *  1 W1 buys ETH $1000 10 min ago        6 W4 deposits USDC $2000 3 h ago
 *  2 W2 sells ETH $400 50 min ago        7 W3 withdraws ETH $700 5 h ago
 *  3 W1 buys UNI $300 2 h ago            8 W1 buys ETH, no price, 30 min ago
 *  4 W3 sells UNI $100 23 h ago          9 W4 buys UNI $50 24 h 10 min ago
 *  5 W2 buys PEPE $5000 25 h ago        10 W2 sells LINK $200 8 days ago
 */
export const windowDataset = (now: number): ReadonlyArray<Tx> => [
  { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 1000, at: now - 10 * 60_000 },
  { wallet: W.W2, token: "WETH", category: "dex_sell", usd: 400, at: now - 50 * 60_000 },
  { wallet: W.W1, token: "UNI", category: "dex_buy", usd: 300, at: now - 2 * HOUR },
  { wallet: W.W3, token: "UNI", category: "dex_sell", usd: 100, at: now - 23 * HOUR },
  { wallet: W.W2, token: "PEPE", category: "dex_buy", usd: 5000, at: now - 25 * HOUR },
  { wallet: W.W4, token: "USDC", category: "exchange_deposit", usd: 2000, at: now - 3 * HOUR },
  { wallet: W.W3, token: "WETH", category: "exchange_withdraw", usd: 700, at: now - 5 * HOUR },
  { wallet: W.W1, token: "WETH", category: "dex_buy", usd: null, at: now - 30 * 60_000 },
  { wallet: W.W4, token: "UNI", category: "dex_buy", usd: 50, at: now - 24 * HOUR - 10 * 60_000 },
  { wallet: W.W2, token: "LINK", category: "dex_sell", usd: 200, at: now - 8 * DAY }
]
