/** Pure parts of the hub: seq ↔ stream id, credentials at the upgrade, topic gates, the relay's history rules. */
import { describe, expect, it } from "vitest"
import { idOfSeq, msOfSeq, seqOfId } from "../../schema/ws"
import { presented, sameOrigin } from "../../server/platform/ws/Credentials"
import { Relay } from "../../server/platform/ws/Relay"
import { PLAYBOOK_TOPICS } from "../../server/domains/playbook/Topics"
import { CONSOLE_TOPICS } from "../../server/gateways/console/Topics"
import { PLATFORM_TOPICS, TopicTable } from "../../server/platform/ws/Topics"

const table = new TopicTable([...PLATFORM_TOPICS, ...CONSOLE_TOPICS, ...PLAYBOOK_TOPICS])
const access = table.access.bind(table)
const SOURCES = table.sources

const base = { host: "app.example", origin: "", cookie: "", authorization: "", protocols: "", query: "" }

describe("seq", () => {
  it("maps stream ids to increasing safe integers and back", () => {
    const ids = ["1732147200000-0", "1732147200000-1", "1732147200000-4095", "1732147200001-0", "3471292800000-7"]
    const seqs = ids.map((id) => seqOfId(id)!)
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs)
    expect(new Set(seqs).size).toBe(ids.length)
    for (const s of seqs) expect(Number.isSafeInteger(s)).toBe(true)
    expect(seqs.map(idOfSeq)).toEqual(ids)
    expect(msOfSeq(seqs[3]!)).toBe(1732147200001)
  })

  it("refuses ids it cannot represent", () => {
    expect(seqOfId("1000-0")).toBeNull()
    expect(seqOfId("1732147200000-4096")).toBeNull()
    expect(seqOfId("nope")).toBeNull()
  })
})

describe("credentials", () => {
  it("prefers the subprotocol token, answering whale.v1 only when offered", () => {
    expect(presented({ ...base, protocols: "whale.v1, whale.token.abc", query: "token=q" }, "http://app.example")).toEqual({ token: "abc", protocol: "whale.v1", via: "protocol" })
    expect(presented({ ...base, protocols: "whale.token.abc" }, "http://app.example").protocol).toBe("")
    expect(presented({ ...base, authorization: "Bearer h" }, "http://app.example")).toMatchObject({ token: "h", via: "header" })
    expect(presented({ ...base, query: "a=1&token=q%2Bx" }, "http://app.example")).toMatchObject({ token: "q+x", via: "query" })
  })

  it("uses the cookie only from the server's own origin", () => {
    const cookie = "other=1; whale_token=c"
    expect(presented({ ...base, cookie, origin: "http://app.example" }, "http://localhost:8080").token).toBe("c")
    expect(presented({ ...base, cookie, origin: "https://console.example" }, "https://console.example").token).toBe("c")
    expect(presented({ ...base, cookie, origin: "https://evil.example" }, "http://app.example")).toMatchObject({ token: undefined, via: "none" })
    expect(sameOrigin("not a url", "app.example", "http://app.example")).toBe(false)
  })
})

describe("gates", () => {
  const free = { id: 7, tier: "free" as const, admin: false }
  it("delays the feed for anonymous clients only when a delay is set", () => {
    expect(access("feed:trades", null, 30_000)).toEqual({ ok: true, audience: "delayed" })
    expect(access("feed:trades", null, 0)).toEqual({ ok: true, audience: "live" })
    expect(access("feed:trades", free, 30_000)).toEqual({ ok: true, audience: "live" })
  })
  it("keeps ops for admins, playbook for whales, user topics for their user", () => {
    expect(access("ops:actors", { ...free, admin: true }, 0).ok).toBe(true)
    expect(access("ops:actors", free, 0)).toMatchObject({ ok: false, code: "admin_required" })
    expect(access("playbook:live", { ...free, tier: "whale" }, 0).ok).toBe(true)
    expect(access("user:7", free, 0).ok).toBe(true)
    expect(access("user:8", free, 0)).toMatchObject({ ok: false, code: "forbidden" })
    expect(access("user:x", free, 0)).toMatchObject({ ok: false, code: "unknown_topic" })
  })
  it("refuses a topic registered twice", () => {
    expect(() => new TopicTable([...CONSOLE_TOPICS, CONSOLE_TOPICS[0]!])).toThrow(/feed:trades is registered twice/)
  })
})

describe("relay", () => {
  const feed = SOURCES.find((s) => s.stream === "chain.tx")!
  const tx = (n: number) => ({
    messageId: `m${n}`, id: n, tx_hash: "0x1", log_index: 0, block: 1, ts: "2026-01-01T00:00:00Z", wallet: "0x28c6c06298d514db089934071355e5743bf21d60",
    wallet_label: null, token: "0x2", symbol: "T", category: "dex_buy", amount: "1", usd: 1, price_usd: 1, counter_token: null, counter_symbol: null, venue: null, source: "demo"
  })
  const at = 1_732_147_200_000
  const entry = (n: number, ms = at) => ({ id: `${ms}-${n}`, payload: tx(n) })

  it("publishes live at once and to the delayed audience when due, holding a bounded history", () => {
    const sent: Array<[string, number]> = []
    const relay = new Relay(feed, 3, 1_000, (channel, frame) => sent.push([channel, JSON.parse(frame).data.id]))
    relay.init([], at)
    relay.ingest([entry(1), entry(2), { id: `${at}-3`, payload: { broken: true } }, entry(4), entry(5)])
    expect(sent).toEqual([["feed:trades", 1], ["feed:trades", 2], ["feed:trades", 4], ["feed:trades", 5]])
    expect(relay.skipped).toBe(1)
    relay.tick(at + 999)
    expect(sent).toHaveLength(4)
    relay.tick(at + 1_000)
    expect(sent.slice(4)).toEqual([["feed:trades~delayed", 2], ["feed:trades~delayed", 4], ["feed:trades~delayed", 5]])
    // Entry 1 was pushed out (capacity 3): a client that has only entry 0 missed more than is held.
    expect(relay.history("feed:trades", "live", seqOfId(`${at}-0`)!, 0)).toMatchObject({ truncated: true })
    expect(relay.history("feed:trades", "live", seqOfId(`${at}-1`)!, 0)).toMatchObject({ truncated: false })
    const since2 = relay.history("feed:trades", "live", seqOfId(`${at}-2`)!, 0)
    expect(since2.truncated).toBe(false)
    expect(since2.frames.map((f) => JSON.parse(f).data.id)).toEqual([4, 5])
    expect(JSON.parse(relay.history("feed:trades", "delayed", undefined, 1).frames[0]!).data.wallet).toBe("0x28c6…1d60")
  })

  it("serves trades that happened longer ago than the delay to the delayed audience at once (the backlog at start)", () => {
    const sent: Array<[string, number]> = []
    const relay = new Relay(feed, 10, 30_000, (channel, frame) => sent.push([channel, JSON.parse(frame).data.id]))
    const old = (n: number) => ({ id: `${at}-${n}`, payload: { ...tx(n), ts: new Date(at - 60_000).toISOString() } })
    relay.init([old(1), old(2)], at)
    expect(relay.history("feed:trades", "delayed", undefined, 10).frames.map((f) => JSON.parse(f).data.id)).toEqual([1, 2])
    relay.ingest([old(3), entry(4)])
    relay.tick(at)
    expect(sent.filter(([c]) => c.endsWith("~delayed"))).toEqual([["feed:trades~delayed", 3]])
    relay.tick(at + 30_000)
    expect(sent.filter(([c]) => c.endsWith("~delayed")).map(([, id]) => id)).toEqual([3, 4])
  })

  it("relays a reorg's retraction of a trade in order, masked for the delayed audience", () => {
    const frames: Array<[string, unknown]> = []
    const relay = new Relay(feed, 10, 0, (channel, frame) => frames.push([channel, JSON.parse(frame).data]))
    relay.init([], at)
    const retraction = {
      messageId: "retraction:x", kind: "retraction", id: 1, tx_hash: "0x1", log_index: 0, block: 1,
      wallet: "0x28c6c06298d514db089934071355e5743bf21d60", token: "0x2", category: "dex_buy", usd: 1, reason: "reorg"
    }
    relay.ingest([entry(1), { id: `${at}-2`, payload: retraction }])
    relay.tick(at)
    expect(frames.map(([c, d]) => [c, (d as { kind?: string }).kind ?? "trade"])).toEqual([
      ["feed:trades", "trade"], ["feed:trades", "retraction"], ["feed:trades~delayed", "trade"], ["feed:trades~delayed", "retraction"]
    ])
    expect(frames[3]![1]).toMatchObject({ kind: "retraction", tx_hash: "0x1", log_index: 0, token: "0x2", wallet: "0x28c6…1d60" })
  })

  it("starting from the stream's newest entries marks history complete only when it holds them all", () => {
    const relay = new Relay(feed, 2, 0, () => undefined)
    relay.init([entry(1), entry(2), entry(3)], at)
    expect(relay.history("feed:trades", "live", seqOfId(`${at}-1`)!, 0)).toMatchObject({ truncated: false })
    expect(relay.history("feed:trades", "live", seqOfId(`${at}-0`)!, 0)).toMatchObject({ truncated: true })
    expect(relay.lastId).toBe(`${at}-3`)
  })
})
