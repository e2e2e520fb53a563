/**
 * Who an address is, from its sources: the precedence (operator, label file, strong rule, seed, rule), doubtful
 * labels never shown as fact, operators' vetoes that rules never undo, EIP-7702 kinds, and the book folding a
 * block's findings (a transaction seen twice is counted once).
 */
import { describe, expect, it } from "vitest"
import { emptyState, IdentityBook } from "../../server/domains/identity/Book"
import { kindOfCode } from "../../server/domains/identity/Engine"
import { labelBook, loadLabelBook } from "../../server/domains/identity/Labels"
import { readActivity } from "../../server/domains/identity/Activity"
import { replayCorrections, resolveIdentity } from "../../server/domains/identity/Resolve"
import type { Correction, Evidence } from "../../server/domains/identity/Types"
import { addr, blockOf, deposit, poolSwap, TOKEN_A, WETH } from "./support"

const A = addr(0xa11ce)
const evidence = (o: Partial<Evidence> & Pick<Evidence, "class" | "rule" | "confidence">): Evidence => ({
  hits: 1, txs: [`0x${"1".repeat(64)}`], pool: null, counterpart: null, exchange: null, firstBlock: 1, lastBlock: 1, ...o
})
const correction = (o: Partial<Correction> & Pick<Correction, "action" | "field">): Correction =>
  ({ address: A, value: null, exchange: null, reason: "checked on the explorer", ...o })
const sandwich = evidence({ class: "mev_bot", rule: "sandwich", confidence: 0.9 })
const traded = evidence({ class: "trader", rule: "dex_swap", confidence: 0.5 })

describe("resolution", () => {
  it("puts a strong rule above seed data, and seed data above a weak rule", () => {
    const tracked = { label: "Some Whale", source: "seed" }
    expect(resolveIdentity({ address: A, tracked, evidence: [sandwich, traded] })).toMatchObject({ class: "mev_bot", classSource: "rule", confidence: 0.9, label: "Some Whale", labelSource: "seed" })
    expect(resolveIdentity({ address: A, tracked, evidence: [traded] })).toMatchObject({ class: "whale", classSource: "seed", confidence: 0.9 })
    expect(resolveIdentity({ address: A, evidence: [traded] })).toMatchObject({ class: "trader", classSource: "rule", label: null })
    expect(resolveIdentity({ address: A, evidence: [] })).toMatchObject({ class: "unknown", confidence: 0, reasons: [] })
  })

  it("never makes a labelled router or exchange a whale, and never a custom (privately monitored) wallet", () => {
    const router = { name: "Uniswap: Universal Router", class: "router" as const, exchange: null, file: "labels.json", doubt: false }
    expect(resolveIdentity({ address: A, label: router, tracked: { label: "x", source: "seed" }, evidence: [traded] }))
      .toMatchObject({ class: "router", classSource: "label_file", label: "Uniswap: Universal Router", labelSource: "label_file" })
    expect(resolveIdentity({ address: A, tracked: { label: "0xa11c…a11ce", source: "custom" }, evidence: [] })).toMatchObject({ class: "unknown", label: null })
  })

  it("names a doubtful label as doubtful and never shows it as fact", () => {
    const book = labelBook([{ address: A, name: "IOSG Ventures?", class: "fund", exchange: null, file: "test.json", doubt: true }])
    expect(book.fact(A)).toBeUndefined()
    const identity = resolveIdentity({ address: A, label: book.get(A), evidence: [traded] })
    expect(identity).toMatchObject({ class: "trader", label: null, labelSource: null })
    expect(identity.reasons).toContain(`doubtful label "IOSG Ventures?" in test.json: not used`)
    // The shipped label files hold no doubtful label as fact.
    const shipped = loadLabelBook()
    expect(shipped.size).toBeGreaterThan(280)
  })

  it("lets an operator's correction win, and a veto stand against every rule", () => {
    const setExchange = replayCorrections([correction({ action: "set", field: "class", value: "exchange", exchange: "Kraken" })])
    expect(resolveIdentity({ address: A, evidence: [sandwich], correction: setExchange }))
      .toMatchObject({ class: "exchange", classSource: "operator", exchange: "Kraken", confidence: 1 })
    const notABot = replayCorrections([correction({ action: "unset", field: "class", value: "mev_bot", reason: "a market maker's hedging, not a sandwich" })])
    const vetoed = resolveIdentity({ address: A, evidence: [sandwich, evidence({ ...sandwich, hits: 9, confidence: 0.95 }), traded], correction: notABot })
    expect(vetoed).toMatchObject({ class: "trader", classSource: "rule" })
    expect(vetoed.reasons).toContain("operator: not mev_bot: a market maker's hedging, not a sandwich")
    const label = replayCorrections([correction({ action: "unset", field: "label" })])
    const fileLabel = { name: "MtGox Cold Wallet", class: "exchange" as const, exchange: "Mt. Gox", file: "labels.json", doubt: false }
    expect(resolveIdentity({ address: A, label: fileLabel, evidence: [], correction: label })).toMatchObject({ class: "exchange", label: null })
    const relabelled = replayCorrections([correction({ action: "unset", field: "label" }), correction({ action: "set", field: "label", value: "Kraken 4" })])
    expect(resolveIdentity({ address: A, label: fileLabel, evidence: [], correction: relabelled })).toMatchObject({ label: "Kraken 4", labelSource: "operator" })
  })

  it("discounts a sweep into an exchange for an address that also swapped on its own", () => {
    const sweep = evidence({ class: "exchange", rule: "exchange_sweep", confidence: 0.6, exchange: "Coinbase" })
    expect(resolveIdentity({ address: A, evidence: [sweep] })).toMatchObject({ class: "exchange", exchange: "Coinbase", label: "Coinbase deposit address", labelSource: "rule" })
    expect(resolveIdentity({ address: A, evidence: [sweep, traded] })).toMatchObject({ class: "trader" })
  })
})

describe("kinds", () => {
  it("reads EOAs, contracts and EIP-7702 delegations from eth_getCode", () => {
    expect(kindOfCode("0x")).toEqual({ kind: "eoa", delegate: null })
    expect(kindOfCode("0x6080604052")).toEqual({ kind: "contract", delegate: null })
    const delegate = "0x63c0c19a282a1b52b07dd5a65b58948a07dae32b"
    expect(kindOfCode(`0xef0100${delegate.slice(2)}`)).toEqual({ kind: "eoa", delegate })
    expect(resolveIdentity({ address: A, kind: kindOfCode(`0xef0100${delegate.slice(2)}`), evidence: [] }).reasons).toEqual([`EIP-7702: delegates its code to ${delegate}`])
  })
})

describe("the book", () => {
  it("counts a transaction once when a block is observed twice, and keeps first and last block", () => {
    const book = new IdentityBook(labelBook([]))
    const user = addr(0xf1)
    const pool = addr(0x9001)
    const { block, logs } = blockOf(7, [{ from: user, to: addr(0x7708), logs: poolSwap({ pool, payer: user, recipient: user, tokenIn: WETH, tokenOut: TOKEN_A, amountIn: 5n, amountOut: 6n }) }])
    const first = book.observe(readActivity(block, logs))
    expect(first.identities.find((i) => i.identity.address === user)?.identity).toMatchObject({ class: "trader" })
    const again = book.observe(readActivity(block, logs))
    expect(again.evidence).toEqual([])
    expect(book.state(user)).toMatchObject({ firstBlock: 7, lastBlock: 7 })
    expect(book.state(user)!.evidence).toEqual([expect.objectContaining({ rule: "dex_swap", hits: 1 })])
    expect(book.state(pool)!.kind).toEqual({ kind: "contract", delegate: null })
  })

  it("keeps the addresses met most recently when it is full (the database keeps the rest)", () => {
    const book = new IdentityBook(labelBook([]), 20)
    for (let n = 0; n < 21; n++) book.put(addr(n), { ...emptyState(), lastBlock: 100 + n })
    // Full at 21: down to 90 % of the capacity, the oldest first.
    for (const n of [0, 1, 2]) expect(book.state(addr(n))).toBeUndefined()
    for (const n of [3, 20]) expect(book.state(addr(n))).toBeDefined()
    expect(book.missing([addr(0), addr(20)])).toEqual([addr(0)])
  })

  it("reports one evidence row per address, class and rule when several transactions of a block add to it", () => {
    const book = new IdentityBook(labelBook([]))
    const pool = addr(0x9001)
    const router = addr(0x7708)
    const swap = (user: number) => ({
      from: addr(user), to: router, value: 5n,
      logs: [deposit(router, 5n), ...poolSwap({ pool, payer: router, recipient: addr(user), tokenIn: WETH, tokenOut: TOKEN_A, amountIn: 5n, amountOut: 6n })]
    })
    const { block, logs } = blockOf(8, [swap(0xf1), swap(0xf2), swap(0xf3)])
    const observed = book.observe(readActivity(block, logs))
    const keys = observed.evidence.map((e) => `${e.address}:${e.evidence.rule}`)
    expect(new Set(keys).size).toBe(keys.length)
    expect(observed.evidence.filter((e) => e.address === router)).toEqual([{ address: router, evidence: expect.objectContaining({ rule: "pass_through", hits: 3 }) }])
  })
})
