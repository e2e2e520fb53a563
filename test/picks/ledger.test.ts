import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { canonicalJson, dailyRoots, GENESIS, type LedgerEntry, nextEntry, verifyChain } from "../../server/domains/picks/Ledger"

const build = () => {
  const entries: Array<LedgerEntry> = []
  const add = (at: string, kind: LedgerEntry["kind"], pick_id: number, data: unknown) =>
    entries.push(nextEntry(entries.at(-1) ?? null, { at, kind, pick_id, data }))
  add("2026-03-01T10:00:00.000Z", "flag", 1, { symbol: "AAA", entry_price: 2, flaggers: ["0xa", "0xb", "0xc"] })
  add("2026-03-01T11:00:00.000Z", "flag", 2, { symbol: "BBB", entry_price: 5 })
  add("2026-03-02T09:00:00.000Z", "exit", 1, { wallet: "0xa", route: "dex_sell" })
  add("2026-03-08T10:00:01.000Z", "grade", 1, { status: "GRADED", close_return: 0.2 })
  return entries
}

describe("picks ledger", () => {
  it("chains SHA-256 over the previous hash and the canonical payload", () => {
    const [first, second] = build()
    expect(first!.prev_hash).toBe(GENESIS)
    expect(first!.hash).toBe(createHash("sha256").update(`${GENESIS}\n${first!.payload}`).digest("hex"))
    expect(second!.prev_hash).toBe(first!.hash)
    expect(first!.payload).toBe(canonicalJson({ seq: 1, at: first!.at, kind: "flag", pick_id: 1, data: { symbol: "AAA", entry_price: 2, flaggers: ["0xa", "0xb", "0xc"] } }))
  })

  it("writes canonical JSON with sorted keys", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: null, c: "x" }], e: undefined, f: Number.NaN })).toBe('{"a":[2,{"c":"x","d":null}],"b":1,"f":null}')
  })

  it("verifies an intact chain and publishes one root per day", () => {
    const entries = build()
    expect(verifyChain(entries)).toEqual({ ok: true, entries: 4, head: entries[3]!.hash })
    expect(dailyRoots(entries)).toEqual([
      { day: "2026-03-01", root: entries[1]!.hash, last_seq: 2, entries: 2 },
      { day: "2026-03-02", root: entries[2]!.hash, last_seq: 3, entries: 1 },
      { day: "2026-03-08", root: entries[3]!.hash, last_seq: 4, entries: 1 }
    ])
    // Verifying from a kept root onwards.
    expect(verifyChain(entries.slice(2), { seq: 2, hash: entries[1]!.hash })).toMatchObject({ ok: true, entries: 2 })
  })

  it("detects a deleted pick, an edited payload and a back-dated entry", () => {
    const entries = build()
    expect(verifyChain([entries[0]!, ...entries.slice(2)])).toMatchObject({ ok: false, seq: 3 })
    const edited = entries.map((e, i) => (i === 1 ? { ...e, payload: e.payload.replace('"entry_price":5', '"entry_price":4') } : e))
    expect(verifyChain(edited)).toMatchObject({ ok: false, seq: 2, problem: "hash does not match the payload" })
    // Back-dating and re-hashing the entry itself breaks the next link.
    const e1 = entries[1]!
    const moved = nextEntry(entries[0]!, { at: "2026-02-20T00:00:00.000Z", kind: "flag", pick_id: 2, data: { symbol: "BBB", entry_price: 5 } })
    expect(moved.hash).not.toBe(e1.hash)
    expect(verifyChain([entries[0]!, moved, ...entries.slice(2)])).toMatchObject({ ok: false })
    // A fully rebuilt chain with a back-dated time is caught by the time order.
    const rebuilt: Array<LedgerEntry> = [entries[0]!]
    rebuilt.push(nextEntry(rebuilt[0]!, { at: "2026-02-20T00:00:00.000Z", kind: "flag", pick_id: 2, data: {} }))
    expect(verifyChain(rebuilt)).toMatchObject({ ok: false, seq: 2, problem: "time goes backwards (back-dated entry)" })
    // A row whose columns disagree with its hashed payload.
    expect(verifyChain([{ ...entries[0]!, pick_id: 9 }])).toMatchObject({ ok: false, seq: 1 })
  })
})
