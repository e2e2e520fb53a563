/**
 * Pure decoding of a tracked wallet's transaction into normalized records (ARCHITECTURE §6).
 *
 * 1. Movements: every ERC-20 Transfer (3 topics; ERC-721's 4-topic Transfer is ignored) into or out of a tracked
 *    wallet, plus native ETH counted as WETH: `tx.value`, internal transfers when traces are given, WETH Deposit
 *    (wallet wraps: +WETH, offsetting the ETH it sent) and WETH Withdrawal by a router (the router unwraps and
 *    pays the sender). Without traces, only the contract the wallet called is assumed to pay it: Withdrawals by
 *    `tx.to`, or — when `tx.to` is a known router that delegated (MetaMask → 1inch, Coinbase Wallet → 0x) and
 *    did not unwrap itself — Withdrawals by other known routers. A fee-on-transfer token's own swap-back through
 *    a router is therefore not mistaken for the wallet's proceeds. When none of these applies and the sender only
 *    sent tokens (no ETH, nothing received), the last Withdrawal by another contract whose ETH was not wrapped again
 *    is the sender's proceeds (an aggregator whose executor unwraps and pays in native ETH): `ethVia: "inferred"`.
 *    A record whose native-ETH amount came from traces says `ethVia: "trace"`, from Withdrawal events
 *    `"withdrawal"` or `"inferred"`, from the transaction's value `"value"`.
 * 2. Net per (wallet, token). One token out and one in, with a quote side (WETH or a stablecoin), is a swap of
 *    the non-quote token: `dex_buy` when it came in, `dex_sell` when it went out. WETH against a stablecoin is a
 *    trade of WETH (USDC→WETH is a WETH buy). Stable↔stable and token↔token swaps record nothing.
 * 3. Otherwise each token whose counterparties are all exchange wallets (labelled, or found by the identity engine:
 *    deposit addresses, operators' corrections — `exchangeOf`) is an `exchange_deposit` (out) or an
 *    `exchange_withdraw` (in) — when the wallet itself is no exchange wallet. When it is one, the movement is the
 *    exchanges' own (hot ↔ cold, a deposit address swept, one exchange paying another): `exchange_housekeeping`,
 *    never a flow (venue: the exchange, or "A → B" between two exchanges). Anything else yields nothing.
 *
 * Never throws on odd data: undecodable logs are skipped, unknown tokens are recorded as `UNKNOWN`.
 */
import { formatUnits } from "viem"
import { WETH, isQuote, type LabelLookup, type TokenLookup } from "./Reference"
import type { Address, InternalTransfer, RawLog, RawTx, ResolvedToken, WhaleCategory, WhaleRecord } from "./Types"

export const TOPIC_TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
export const TOPIC_WETH_DEPOSIT = "0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c"
export const TOPIC_WETH_WITHDRAWAL = "0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65"

export interface DecodeContext {
  readonly wallets: ReadonlySet<string>
  readonly tokens: TokenLookup
  readonly labels: LabelLookup
  /** Exchange wallets the labels do not name (the identity engine's deposit addresses and corrections). */
  readonly exchangeOf?: ExchangeLookup
}

/** The exchange an address belongs to, when it is one of an exchange's wallets. */
export type ExchangeLookup = (address: string) => string | undefined

/** A labelled exchange wallet's exchange; else what `exchangeOf` knows (never for a labelled router or fund). */
export const exchangeOfAddress = (ctx: Pick<DecodeContext, "labels" | "exchangeOf">, address: string): string | undefined => {
  const label = ctx.labels(address)
  if (label !== undefined) return label.category === "exchange" ? label.exchange : undefined
  return ctx.exchangeOf?.(address)
}

export interface DecodeInput {
  readonly tx: RawTx
  /** The transaction's logs (logs of other transactions are ignored). */
  readonly logs: ReadonlyArray<RawLog>
  /** Native ETH moved by internal calls, from traces. When given, Withdrawal events are not used to guess. */
  readonly internal?: ReadonlyArray<InternalTransfer>
}

export interface Movement {
  readonly wallet: Address
  readonly token: Address
  readonly delta: bigint
  /** -1 for native ETH outside any log. */
  readonly logIndex: number
  readonly counterparty: Address | null
  /** How a native-ETH movement was seen (absent for token transfers and WETH Deposits). */
  readonly via?: EthVia
}

/** How a record's native-ETH amount was derived. */
export type EthVia = "value" | "trace" | "withdrawal" | "inferred"

const WORD = /^0x[0-9a-fA-F]{64}$/
const ADDRESS_WORD = /^0x0{24}[0-9a-fA-F]{40}$/
const topicAddress = (topic: string | undefined): Address | undefined =>
  topic !== undefined && ADDRESS_WORD.test(topic) ? `0x${topic.slice(26).toLowerCase()}` : undefined
const wordValue = (data: string): bigint | undefined => (WORD.test(data) ? BigInt(data) : undefined)

const WETH_FALLBACK: ResolvedToken = {
  address: WETH, symbol: "WETH", decimals: 18, stable: false, eth_derivative: true, blacklisted: false
}
const resolve = (ctx: DecodeContext, address: string) =>
  ctx.tokens(address) ?? (address === WETH ? WETH_FALLBACK : undefined)

interface Withdrawal { readonly src: Address; readonly wad: bigint; readonly logIndex: number }

/** Withdrawals whose ETH is taken to reach `tx.from` (see the header). */
const payingWithdrawals = (tx: RawTx, all: ReadonlyArray<Withdrawal>, ctx: DecodeContext): Array<Withdrawal> => {
  const others = all.filter((w) => w.src !== tx.from && !ctx.wallets.has(w.src))
  // The last unwrap is the sender's: a fee-on-transfer token's swap-back through the same router runs inside the
  // sender's token transfer, before the sender's own swap completes (mainnet tx 0xda46ac19…, block 17173049).
  const last = (list: ReadonlyArray<Withdrawal>) => list.slice(-1)
  const direct = others.filter((w) => w.src === tx.to)
  if (direct.length > 0 || tx.to === null || ctx.labels(tx.to)?.category !== "router") return last(direct)
  return last(others.filter((w) => ctx.labels(w.src)?.category === "router"))
}

/** Every movement of a tracked wallet in the transaction, in log order (native ETH first). */
export const walletMovements = (input: DecodeInput, ctx: DecodeContext): Array<Movement> => {
  const { tx, internal } = input
  if (tx.status === "reverted") return []
  const out: Array<Movement> = []
  const move = (wallet: Address, token: Address, delta: bigint, logIndex: number, counterparty: Address | null, via?: EthVia) => {
    if (delta !== 0n && ctx.wallets.has(wallet)) out.push(via === undefined ? { wallet, token, delta, logIndex, counterparty } : { wallet, token, delta, logIndex, counterparty, via })
  }
  const native = (from: Address, to: Address | null, value: bigint, via: EthVia) => {
    if (value <= 0n || to === null || from === to) return
    move(from, WETH, -value, -1, to, via)
    move(to, WETH, value, -1, from, via)
  }
  native(tx.from, tx.to, tx.value, "value")
  for (const t of internal ?? []) native(t.from, t.to, t.value, "trace")

  const withdrawals: Array<Withdrawal> = []
  const deposits: Array<Withdrawal> = []
  for (const log of input.logs) {
    if (log.transactionHash !== tx.hash) continue
    const topic0 = log.topics[0]?.toLowerCase()
    if (topic0 === TOPIC_TRANSFER && log.topics.length === 3) {
      const from = topicAddress(log.topics[1])
      const to = topicAddress(log.topics[2])
      const value = wordValue(log.data)
      if (from === undefined || to === undefined || value === undefined || from === to) continue
      move(from, log.address, -value, log.logIndex, to)
      move(to, log.address, value, log.logIndex, from)
    } else if (log.address === WETH && log.topics.length === 2) {
      const who = topicAddress(log.topics[1])
      const wad = wordValue(log.data)
      if (who === undefined || wad === undefined) continue
      if (topic0 === TOPIC_WETH_DEPOSIT) {
        move(who, WETH, wad, log.logIndex, WETH)
        deposits.push({ src: who, wad, logIndex: log.logIndex })
      }
      if (topic0 === TOPIC_WETH_WITHDRAWAL) withdrawals.push({ src: who, wad, logIndex: log.logIndex })
    }
  }
  if (internal === undefined) {
    const paying = payingWithdrawals(tx, withdrawals, ctx)
    for (const w of paying) move(tx.from, WETH, w.wad, w.logIndex, w.src, "withdrawal")
    const inferred = paying.length === 0 ? unaccountedWithdrawal(tx, withdrawals, deposits, out, ctx) : undefined
    if (inferred !== undefined) move(tx.from, WETH, inferred.wad, inferred.logIndex, inferred.src, "inferred")
  }
  return out
}

/**
 * The Withdrawal taken to pay a sender who only sent tokens when no known router unwrapped for it (see the header):
 * the last one by a contract other than the sender and the tracked wallets whose ETH was not wrapped again by the
 * same contract later in the transaction.
 */
const unaccountedWithdrawal = (
  tx: RawTx, withdrawals: ReadonlyArray<Withdrawal>, deposits: ReadonlyArray<Withdrawal>, moves: ReadonlyArray<Movement>, ctx: DecodeContext
): Withdrawal | undefined => {
  if (tx.value > 0n || !ctx.wallets.has(tx.from)) return undefined
  const net = new Map<string, bigint>()
  for (const m of moves) if (m.wallet === tx.from) net.set(m.token, (net.get(m.token) ?? 0n) + m.delta)
  const sent = [...net.values()].filter((v) => v < 0n).length
  const received = [...net.values()].filter((v) => v > 0n).length
  if (sent !== 1 || received !== 0) return undefined
  const unwrapped = withdrawals.filter((w) =>
    w.src !== tx.from && !ctx.wallets.has(w.src) && !deposits.some((d) => d.src === w.src && d.logIndex > w.logIndex && d.wad >= w.wad))
  return unwrapped.at(-1)
}

interface Net {
  readonly token: Address
  net: bigint
  /** Lowest non-negative log index, or -1 when only native ETH moved. */
  position: number
  readonly counterparties: Array<Address | null>
  /** How its native-ETH part was seen, when it has one (the least certain way wins). */
  via: EthVia | null
}

const VIA_RANK: Record<EthVia, number> = { value: 0, trace: 1, withdrawal: 2, inferred: 3 }

const netsByWallet = (movements: ReadonlyArray<Movement>) => {
  const wallets = new Map<Address, Map<Address, Net>>()
  for (const m of movements) {
    const tokens = wallets.get(m.wallet) ?? new Map<Address, Net>()
    wallets.set(m.wallet, tokens)
    const n = tokens.get(m.token) ?? { token: m.token, net: 0n, position: -1, counterparties: [], via: null }
    tokens.set(m.token, n)
    n.net += m.delta
    if (m.via !== undefined && (n.via === null || VIA_RANK[m.via] > VIA_RANK[n.via])) n.via = m.via
    if (m.logIndex >= 0 && (n.position < 0 || m.logIndex < n.position)) n.position = m.logIndex
    n.counterparties.push(m.counterparty)
  }
  return wallets
}

const abs = (x: bigint) => (x < 0n ? -x : x)
const amountOf = (raw: bigint, token: ResolvedToken | undefined) => formatUnits(raw, token?.decimals ?? 0)

const record = (
  tx: RawTx, wallet: Address, subject: Net, category: WhaleCategory, ctx: DecodeContext,
  counter: Net | null, venue: string | null
): WhaleRecord => {
  const token = resolve(ctx, subject.token)
  const counterToken = counter === null ? undefined : resolve(ctx, counter.token)
  return {
    txHash: tx.hash, logIndex: subject.position, block: tx.blockNumber, blockHash: tx.blockHash,
    ts: new Date(tx.timestamp * 1000), wallet, token: subject.token,
    symbol: token?.symbol ?? "UNKNOWN", decimals: token?.decimals ?? null, category,
    amount: amountOf(abs(subject.net), token), amountRaw: abs(subject.net).toString(),
    usd: null, priceUsd: null,
    counterToken: counter?.token ?? null,
    counterSymbol: counter === null ? null : (counterToken?.symbol ?? "UNKNOWN"),
    counterAmount: counter === null ? null : amountOf(abs(counter.net), counterToken),
    venue,
    ethVia: (subject.token === WETH ? subject.via : counter?.token === WETH ? counter.via : null) ?? null
  }
}

/** The (subject, counter) of a one-out/one-in net, or undefined when it is not a priced swap. */
const swapLegs = (out: Net, into: Net, ctx: DecodeContext): [Net, Net] | undefined => {
  const quoteOut = isQuote(resolve(ctx, out.token), out.token)
  const quoteIn = isQuote(resolve(ctx, into.token), into.token)
  if (quoteOut !== quoteIn) return quoteOut ? [into, out] : [out, into]
  if (!quoteOut) return undefined
  if (out.token === WETH) return [out, into]
  if (into.token === WETH) return [into, out]
  return undefined
}

const decodeWallet = (tx: RawTx, wallet: Address, tokens: Map<Address, Net>, ctx: DecodeContext) => {
  const nets = [...tokens.values()].filter((n) => n.net !== 0n && resolve(ctx, n.token)?.blacklisted !== true)
  const outs = nets.filter((n) => n.net < 0n)
  const ins = nets.filter((n) => n.net > 0n)
  if (outs.length === 1 && ins.length === 1) {
    const legs = swapLegs(outs[0]!, ins[0]!, ctx)
    if (legs !== undefined) {
      const [subject, counter] = legs
      const router = tx.to === null ? undefined : ctx.labels(tx.to)
      const venue = router?.category === "router" ? router.venue : tx.to
      return [record(tx, wallet, subject, subject.net > 0n ? "dex_buy" : "dex_sell", ctx, counter, venue)]
    }
  }
  const records: Array<WhaleRecord> = []
  const own = exchangeOfAddress(ctx, wallet)
  for (const n of nets) {
    const exchanges = n.counterparties.map((c) => (c === null ? undefined : exchangeOfAddress(ctx, c)))
    const first = exchanges[0]
    if (first === undefined || exchanges.some((e) => e === undefined)) continue
    if (own === undefined) {
      records.push(record(tx, wallet, n, n.net < 0n ? "exchange_deposit" : "exchange_withdraw", ctx, null, first))
      continue
    }
    const other = exchanges.find((e) => e !== own)
    const venue = other === undefined ? own : n.net < 0n ? `${own} → ${other}` : `${other} → ${own}`
    records.push(record(tx, wallet, n, "exchange_housekeeping", ctx, null, venue))
  }
  return records
}

const byPosition = (a: WhaleRecord, b: WhaleRecord) =>
  a.logIndex - b.logIndex || a.wallet.localeCompare(b.wallet) || a.token.localeCompare(b.token)

/** The records of one transaction, ordered by position. */
export const decodeTransaction = (input: DecodeInput, ctx: DecodeContext): Array<WhaleRecord> => {
  const records: Array<WhaleRecord> = []
  for (const [wallet, tokens] of netsByWallet(walletMovements(input, ctx))) {
    records.push(...decodeWallet(input.tx, wallet, tokens, ctx))
  }
  return records.sort(byPosition)
}

/** Groups logs by transaction hash, in log order. */
export const logsByTx = (logs: ReadonlyArray<RawLog>): Map<string, Array<RawLog>> => {
  const map = new Map<string, Array<RawLog>>()
  for (const log of [...logs].sort((a, b) => a.logIndex - b.logIndex)) {
    const list = map.get(log.transactionHash) ?? []
    list.push(log)
    map.set(log.transactionHash, list)
  }
  return map
}
