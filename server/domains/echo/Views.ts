/** Wire views of Echo's rows (schema/http/echo.ts), pure. */
import type { Portfolio, Trade } from "../../../schema/http/echo"
import { averageEntry, value, type Book } from "./Ledger"
import type { PortfolioRow, TradeRow } from "./Repo"
import type { TradeFact } from "./Stats"

const round = (n: number, digits = 8) => Math.round(n * 10 ** digits) / 10 ** digits
const usd = (n: number) => round(n, 6)

export const tradeView = (t: TradeRow): Trade => ({
  id: t.id,
  command_id: t.command_id,
  origin: t.origin,
  side: t.side,
  token: t.token,
  symbol: t.symbol,
  quantity: t.quantity,
  price: t.price,
  usd: usd(t.usd),
  market_price: t.market_price,
  whale_price: t.whale_price,
  slippage_bps: round(t.slippage_bps, 4),
  gas_usd: usd(t.gas_usd),
  delay_blocks: t.delay_blocks,
  fill_block: t.fill_block,
  liquidity_usd: t.liquidity_usd,
  realized_pnl: t.realized_pnl === null ? null : usd(t.realized_pnl),
  whale: t.whale_tx_hash === null
    ? null
    : { tx_hash: t.whale_tx_hash, log_index: t.whale_log ?? -1, wallet: t.whale_wallet ?? "", block: t.whale_block ?? 0, usd: t.whale_usd },
  reverses: t.reverses,
  created_at: t.created_at.toISOString()
})

export const tradeFact = (t: TradeRow): TradeFact => ({
  id: t.id, side: t.side, origin: t.origin, token: t.token, symbol: t.symbol, quantity: t.quantity, price: t.price, usd: t.usd,
  whalePrice: t.whale_price, gasUsd: t.gas_usd, realizedPnl: t.realized_pnl, entryPrice: t.entry_price, openedAt: t.opened_at, createdAt: t.created_at
})

export const portfolioView = (p: PortfolioRow, book: Book, prices: ReadonlyMap<string, number>, asOf: Date): Portfolio => {
  const v = value(book, p.start_cash, (t) => prices.get(t) ?? null)
  const holdings = [...book.holdings.values()].map((h) => {
    const price = prices.get(h.token) ?? null
    const val = price === null ? h.cost : h.quantity * price
    return {
      token: h.token,
      symbol: h.symbol,
      quantity: h.quantity,
      avg_entry: averageEntry(h),
      cost_usd: usd(h.cost),
      price,
      value_usd: usd(val),
      unrealized_pnl: price === null ? null : usd(val - h.cost),
      unrealized_pct: price === null || h.cost === 0 ? null : round(((val - h.cost) / h.cost) * 100, 4),
      opened_at: h.openedAt.toISOString()
    }
  }).sort((a, b) => b.value_usd - a.value_usd || a.token.localeCompare(b.token))
  return {
    start_cash: p.start_cash,
    cash: usd(book.cash),
    holdings,
    holdings_value: usd(v.holdingsValue),
    total_value: usd(v.totalValue),
    realized_pnl: usd(book.realized),
    unrealized_pnl: usd(v.unrealized),
    total_pnl: usd(v.totalValue - p.start_cash),
    return_pct: round(v.returnPct, 6),
    resets: p.resets,
    started_at: p.started_at.toISOString(),
    version: p.version,
    as_of: asOf.toISOString()
  }
}
