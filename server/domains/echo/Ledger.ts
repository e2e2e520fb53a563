/**
 * Echo's portfolio accounting, as pure functions over a `Book` (cash, realized P&L, holdings). The one write path
 * (EchoBook.apply) loads the book under the portfolio's row lock, calls `trade`, and stores the result; the
 * invariants below are what `test/echo/ledger.test.ts` checks over random command sequences:
 *   - cash is never negative (a trade that would make it so is rejected, nothing changes);
 *   - a holding's quantity equals the sum of its trades (BUY minus SELL);
 *   - cash + cost basis of the holdings + fees paid = start cash + realized P&L + fees paid (money is conserved):
 *     `cash + Σ cost = start + realized`.
 * Holdings keep their cost basis (`cost` = quantity × average entry, the buy's gas included), so a SELL realizes
 * proceeds − its gas − the sold share of the basis.
 */

export type Side = "BUY" | "SELL"

export interface Holding {
  readonly token: string
  readonly symbol: string
  readonly quantity: number
  /** Cost basis: quantity × average entry (fees included). */
  readonly cost: number
  readonly openedAt: Date
}

export interface Book {
  readonly cash: number
  readonly realized: number
  readonly holdings: ReadonlyMap<string, Holding>
}

/** A priced order: the fill price per unit (slippage included) and the gas charged in USD. */
export interface PricedOrder {
  readonly side: Side
  readonly token: string
  readonly symbol: string
  /** Exactly one of `usd` (notional) and `quantity`. */
  readonly usd?: number | undefined
  readonly quantity?: number | undefined
  readonly price: number
  readonly gasUsd: number
  readonly at: Date
}

export interface Applied {
  readonly book: Book
  readonly quantity: number
  /** Notional: quantity × price. */
  readonly usd: number
  /** SELL: proceeds − gas − the sold basis; BUY: null. */
  readonly realizedPnl: number | null
  /** SELL: the average entry of the holding sold from. */
  readonly entryPrice: number | null
  readonly openedAt: Date | null
}

export type Rejection =
  | { readonly kind: "insufficient_cash"; readonly available_cash: number; readonly required_usd: number }
  | { readonly kind: "insufficient_holdings"; readonly token: string; readonly available_quantity: number; readonly requested_quantity: number }
  | { readonly kind: "invalid_amount"; readonly message: string }

export type TradeResult = { readonly ok: true; readonly applied: Applied } | { readonly ok: false; readonly rejection: Rejection }

/** Relative tolerance under which a SELL of "everything" is treated as exactly everything (float dust). */
const DUST = 1e-9

const reject = (rejection: Rejection): TradeResult => ({ ok: false, rejection })

export const averageEntry = (h: Holding) => (h.quantity > 0 ? h.cost / h.quantity : 0)

export const emptyBook = (cash: number): Book => ({ cash, realized: 0, holdings: new Map() })

/** Applies one priced order to a book: a new book, or a rejection with what was available (nothing changed). */
export const trade = (book: Book, order: PricedOrder): TradeResult => {
  const { price, gasUsd } = order
  if (!(price > 0) || !Number.isFinite(price)) return reject({ kind: "invalid_amount", message: "no usable price" })
  if (!(gasUsd >= 0) || !Number.isFinite(gasUsd)) return reject({ kind: "invalid_amount", message: "invalid gas cost" })
  const byUsd = order.usd !== undefined
  const amount = byUsd ? order.usd! : order.quantity
  if (amount === undefined || !(amount > 0) || !Number.isFinite(amount) || (order.usd !== undefined && order.quantity !== undefined)) {
    return reject({ kind: "invalid_amount", message: "give exactly one positive amount: usd or quantity" })
  }
  const holdings = new Map(book.holdings)
  const held = holdings.get(order.token)

  if (order.side === "BUY") {
    const quantity = byUsd ? amount / price : amount
    const usd = byUsd ? amount : amount * price
    const required = usd + gasUsd
    if (required > book.cash) return reject({ kind: "insufficient_cash", available_cash: book.cash, required_usd: required })
    holdings.set(order.token, {
      token: order.token,
      symbol: order.symbol,
      quantity: (held?.quantity ?? 0) + quantity,
      cost: (held?.cost ?? 0) + required,
      openedAt: held?.openedAt ?? order.at
    })
    // `required <= cash`, so the subtraction cannot go below zero; clamp float dust all the same.
    const cash = Math.max(0, book.cash - required)
    return { ok: true, applied: { book: { cash, realized: book.realized, holdings }, quantity, usd, realizedPnl: null, entryPrice: null, openedAt: null } }
  }

  const available = held?.quantity ?? 0
  let quantity = byUsd ? amount / price : amount
  if (held && quantity > available && quantity <= available * (1 + DUST)) quantity = available
  if (!held || quantity > available) {
    return reject({ kind: "insufficient_holdings", token: order.token, available_quantity: available, requested_quantity: quantity })
  }
  const usd = quantity * price
  const proceeds = usd - gasUsd
  if (book.cash + proceeds < 0) return reject({ kind: "insufficient_cash", available_cash: book.cash, required_usd: -proceeds })
  const all = quantity >= available * (1 - DUST)
  const basis = all ? held.cost : held.cost * (quantity / available)
  const realizedPnl = proceeds - basis
  if (all) holdings.delete(order.token)
  else holdings.set(order.token, { ...held, quantity: available - quantity, cost: held.cost - basis })
  return {
    ok: true,
    applied: {
      book: { cash: Math.max(0, book.cash + proceeds), realized: book.realized + realizedPnl, holdings },
      quantity: all ? available : quantity,
      usd,
      realizedPnl,
      entryPrice: averageEntry(held),
      openedAt: held.openedAt
    }
  }
}

export interface Valuation {
  readonly cash: number
  readonly holdingsValue: number
  readonly totalValue: number
  readonly unrealized: number
  readonly realized: number
  readonly returnPct: number
  /** Holdings without a live price are valued at their cost basis (and listed here). */
  readonly unpriced: ReadonlyArray<string>
}

/** Values a book at live prices (token → USD per unit). */
export const value = (book: Book, startCash: number, prices: (token: string) => number | null): Valuation => {
  let holdingsValue = 0
  let unrealized = 0
  const unpriced: Array<string> = []
  for (const h of book.holdings.values()) {
    const p = prices(h.token)
    if (p === null) {
      unpriced.push(h.token)
      holdingsValue += h.cost
      continue
    }
    holdingsValue += h.quantity * p
    unrealized += h.quantity * p - h.cost
  }
  const totalValue = book.cash + holdingsValue
  return {
    cash: book.cash,
    holdingsValue,
    totalValue,
    unrealized,
    realized: book.realized,
    returnPct: startCash > 0 ? ((totalValue - startCash) / startCash) * 100 : 0,
    unpriced
  }
}
