/** Pure alert logic: schemas and defaults, the matching index against the plain predicate, convergence, cooldowns,
 * the budget, the messenger pacer, Standard Webhooks signatures (the convention's published vector) and SSRF checks,
 * the webhook POST limiter. */
import { describe, expect, it } from "vitest"
import { CreateAlertRequest, type AlertSpec } from "../../schema/http/alerts"
import { ConvergenceWindow } from "../../server/domains/alerts/convergence/Window"
import { MatchIndex, isLive, matchesEvent, naiveMatch, type Category, type MatchRecord, type Sub } from "../../server/domains/alerts/matching/MatchIndex"
import { hourOf, nextRetryDelay, WEBHOOK_RETRY_MS, withinBudget } from "../../server/domains/alerts/Throttle"
import { newWebhookSecret, sign, verify } from "../../server/domains/alerts/delivery/WebhookSignature"
import { makeLimiter } from "../../server/domains/alerts/delivery/WebhookPost"
import { contentOfRecord, messengerText, usd } from "../../server/domains/alerts/Format"

const spec = (body: unknown): AlertSpec => CreateAlertRequest.parse(body) as unknown as AlertSpec

describe("subscription schemas", () => {
  it("fill in each type's defaults when params are absent", () => {
    expect(CreateAlertRequest.parse({ type: "whale_trade" })).toMatchObject({ params: { token: null, side: "any", min_usd: 100_000 }, channels: ["console"] })
    expect(CreateAlertRequest.parse({ type: "convergence" }).params).toEqual({ token: null, min_whales: 3, window_minutes: 60, min_usd: 10_000 })
    expect(CreateAlertRequest.parse({ type: "index_cross", params: { level: 70 } }).params).toEqual({ level: 70, direction: "any" })
  })
  it("take the issue's example body as is, deduplicating channels", () => {
    const body = { type: "whale_trade", params: { side: "buy", min_usd: 100000 }, channels: ["messenger", "console", "console"] }
    expect(CreateAlertRequest.parse(body)).toMatchObject({ params: { side: "buy", min_usd: 100000 }, channels: ["messenger", "console"] })
  })
  it("refuse a missing wallet, unknown keys, unknown channels and out-of-range values", () => {
    expect(CreateAlertRequest.safeParse({ type: "wallet_activity" }).success).toBe(false)
    expect(CreateAlertRequest.safeParse({ type: "whale_trade", params: { sidee: "buy" } }).success).toBe(false)
    expect(CreateAlertRequest.safeParse({ type: "whale_trade", channels: ["sms"] }).success).toBe(false)
    expect(CreateAlertRequest.safeParse({ type: "convergence", params: { min_whales: 1 } }).success).toBe(false)
    expect(CreateAlertRequest.safeParse({ type: "index_cross", params: { level: 101 } }).success).toBe(false)
    expect(CreateAlertRequest.safeParse({ type: "nope" }).success).toBe(false)
  })
  it("normalise tokens: addresses lower-case, symbols upper-case", () => {
    expect(CreateAlertRequest.parse({ type: "whale_trade", params: { token: "pepe" } }).params).toMatchObject({ token: "PEPE" })
    const addr = "0x6982508145454Ce325dDbE47a25d4ec3d2311933"
    expect(CreateAlertRequest.parse({ type: "whale_trade", params: { token: addr } }).params).toMatchObject({ token: addr.toLowerCase() })
  })
})

// A deterministic generator (mulberry32).
const rng = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const TOKENS = [
  { token: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", symbol: "WETH" },
  { token: "0x6982508145454ce325ddbe47a25d4ec3d2311933", symbol: "PEPE" },
  { token: "0x514910771af9ca656af840dff83e8264ecf986ca", symbol: "LINK" },
  { token: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", symbol: "USDC" }
]
const WALLETS = Array.from({ length: 20 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`)
const CATS: ReadonlyArray<Category> = ["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"]

const randomSpec = (r: () => number): AlertSpec => {
  const pick = <T,>(xs: ReadonlyArray<T>) => xs[Math.floor(r() * xs.length)]!
  const token = r() < 0.3 ? null : r() < 0.5 ? pick(TOKENS).token : pick(["ETH", "WETH", "pepe", "LINK", "usdc"])
  const min = pick([0, 1_000, 50_000, 100_000, 1_000_000])
  switch (pick(["whale_trade", "exchange_flow", "wallet_activity", "convergence", "index_cross"] as const)) {
    case "whale_trade": return spec({ type: "whale_trade", params: { token, side: pick(["buy", "sell", "any"]), min_usd: min } })
    case "exchange_flow": return spec({ type: "exchange_flow", params: { token, direction: pick(["deposit", "withdraw", "any"]), min_usd: min } })
    case "wallet_activity": return spec({ type: "wallet_activity", params: { wallet: pick(WALLETS), min_usd: min, categories: r() < 0.5 ? null : [pick(CATS)] } })
    case "convergence": return spec({ type: "convergence", params: { token } })
    case "index_cross": return spec({ type: "index_cross", params: { level: Math.round(r() * 100), direction: pick(["up", "down", "any"]) } })
  }
}

describe("the matching index", () => {
  it("gives exactly the alerts the plain predicate holds for (2,000 alerts × 3,000 records, with updates and removals)", () => {
    const r = rng(7)
    const index = new MatchIndex()
    const subs = new Map<number, Sub>()
    for (let id = 1; id <= 2000; id++) {
      const sub: Sub = { id, userId: id % 97, spec: randomSpec(r), channels: ["console"], enabled: true, snoozedUntil: null }
      subs.set(id, sub)
      index.upsert(sub)
    }
    for (let id = 1; id <= 2000; id += 7) {
      if (id % 2 === 0) { index.remove(id); subs.delete(id) } else {
        const sub: Sub = { ...subs.get(id)!, spec: randomSpec(r) }
        subs.set(id, sub)
        index.upsert(sub)
      }
    }
    expect(index.size).toBe(subs.size)
    let matched = 0
    for (let i = 0; i < 3000; i++) {
      const t = TOKENS[Math.floor(r() * TOKENS.length)]!
      const rec: MatchRecord = { ...t, wallet: WALLETS[Math.floor(r() * WALLETS.length)]!, category: CATS[Math.floor(r() * 4)]!, usd: r() < 0.05 ? null : Math.round(r() * 2_000_000) }
      const fast = index.matchRecord(rec).map((s) => s.id).sort((a, b) => a - b)
      const slow = naiveMatch(subs.values(), rec).map((s) => s.id).sort((a, b) => a - b)
      expect(fast).toEqual(slow)
      matched += fast.length
    }
    expect(matched).toBeGreaterThan(1000)
  })

  it("finds index crossings, live playbook events and picks by their own keys", () => {
    const index = new MatchIndex()
    const add = (id: number, body: unknown) => index.upsert({ id, userId: 1, spec: spec(body), channels: ["console"], enabled: true, snoozedUntil: null })
    add(1, { type: "index_cross", params: { level: 70, direction: "up" } })
    add(2, { type: "index_cross", params: { level: 30, direction: "down" } })
    add(3, { type: "index_cross", params: { level: 50 } })
    add(4, { type: "playbook_live", params: { category: "FOMC", min_severity: 3 } })
    add(5, { type: "pick_flagged", params: { token: "PEPE", min_whales: 3 } })
    add(6, { type: "pick_flagged" })
    const ids = (xs: ReadonlyArray<Sub>) => xs.map((s) => s.id).sort()
    expect(ids(index.matchEvent({ _tag: "IndexValue", previous: 45, value: 72 }))).toEqual([1, 3])
    expect(ids(index.matchEvent({ _tag: "IndexValue", previous: 72, value: 45 }))).toEqual([3])
    expect(ids(index.matchEvent({ _tag: "IndexValue", previous: 31, value: 30 }))).toEqual([2])
    expect(ids(index.matchEvent({ _tag: "IndexValue", previous: null, value: 90 }))).toEqual([])
    expect(ids(index.matchEvent({ _tag: "PlaybookEventStatus", category: "fomc", severity: 4, status: "LIVE" }))).toEqual([4])
    expect(ids(index.matchEvent({ _tag: "PlaybookEventStatus", category: "fomc", severity: 4, status: "COMPLETED" }))).toEqual([])
    expect(ids(index.matchEvent({ _tag: "PlaybookEventStatus", category: "fomc", severity: 2, status: "LIVE" }))).toEqual([])
    expect(ids(index.matchEvent({ _tag: "PickFlagged", token: "0x69", symbol: "PEPE", whales: 4, conviction: 70 }))).toEqual([5, 6])
    expect(ids(index.matchEvent({ _tag: "PickFlagged", token: "0x69", symbol: "PEPE", whales: 2, conviction: 70 }))).toEqual([6])
    expect(matchesEvent(spec({ type: "index_cross", params: { level: 50, direction: "up" } }), { _tag: "IndexValue", previous: 50, value: 60 })).toBe(false)
  })

  it("treats snoozed alerts and muted users as not live until the time passes", () => {
    const sub: Sub = { id: 1, userId: 1, spec: spec({ type: "whale_trade" }), channels: ["console"], enabled: true, snoozedUntil: 10_000 }
    expect(isLive(sub, 9_999, undefined)).toBe(false)
    expect(isLive(sub, 10_000, undefined)).toBe(true)
    expect(isLive(sub, 10_000, 20_000)).toBe(false)
    expect(isLive({ ...sub, enabled: false }, 50_000, undefined)).toBe(false)
  })
})

describe("the convergence window", () => {
  const params = { token: null, min_whales: 3, window_minutes: 60, min_usd: 10_000 }
  const T = "0xtoken"
  const buy = (w: string, minute: number, usd = 50_000) => ({ wallet: w, at: minute * 60_000, usd, key: `${w}:${minute}` })
  it("fires when N distinct wallets bought within the window, once per window", () => {
    const win = new ConvergenceWindow()
    win.add(T, buy("a", 0)); expect(win.evaluate(1, params, T, 0)).toBeNull()
    win.add(T, buy("a", 10)); expect(win.evaluate(1, params, T, 10 * 60_000)).toBeNull()
    win.add(T, buy("b", 20)); expect(win.evaluate(1, params, T, 20 * 60_000)).toBeNull()
    win.add(T, buy("c", 30))
    expect(win.evaluate(1, params, T, 30 * 60_000)?.wallets).toEqual(["c", "b", "a"])
    win.add(T, buy("d", 40)); expect(win.evaluate(1, params, T, 40 * 60_000)).toBeNull()
    // Another alert with the same params fires on its own.
    expect(win.evaluate(2, params, T, 40 * 60_000)).not.toBeNull()
  })
  it("lets buys leave the window and ignores small ones and retracted ones", () => {
    const win = new ConvergenceWindow()
    win.add(T, buy("a", 0)); win.add(T, buy("b", 10)); win.add(T, buy("c", 80))
    expect(win.evaluate(1, params, T, 80 * 60_000)).toBeNull()
    win.add(T, buy("d", 85, 5_000))
    expect(win.evaluate(1, params, T, 85 * 60_000)).toBeNull()
    win.add(T, buy("e", 86)); win.add(T, buy("f", 87))
    win.retract(T, "f:87")
    expect(win.evaluate(1, params, T, 87 * 60_000)).toBeNull()
    win.add(T, buy("g", 88))
    expect(win.evaluate(1, params, T, 88 * 60_000)?.wallets).toEqual(["g", "e", "c"])
  })
})

describe("budget and retry schedules", () => {
  it("count the hourly budget per UTC hour", () => {
    expect(hourOf(Date.UTC(2026, 0, 1, 13, 59, 59))).toBe(Date.UTC(2026, 0, 1, 13))
    expect(withinBudget(30, 30)).toBe(true)
    expect(withinBudget(31, 30)).toBe(false)
  })
  it("retry webhooks for about three days", () => {
    const total = WEBHOOK_RETRY_MS.reduce((a, b) => a + b, 0)
    expect(total / 86_400_000).toBeGreaterThan(2.9)
    expect(total / 86_400_000).toBeLessThan(3.2)
    expect(nextRetryDelay(WEBHOOK_RETRY_MS, 1)).toBe(5_000)
    expect(nextRetryDelay(WEBHOOK_RETRY_MS, WEBHOOK_RETRY_MS.length + 1)).toBeNull()
  })
})

describe("Standard Webhooks signatures", () => {
  it("reproduce the convention's published test vector", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    expect(sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}')).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    const headers = { id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: "1614265330", signature: "v1,bm9wZQ== v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" }
    expect(verify(secret, headers, '{"test": 2432232314}', 1614265330)).toBe(true)
    expect(verify(secret, headers, '{"test": 2432232315}', 1614265330)).toBe(false)
    expect(verify(secret, headers, '{"test": 2432232314}', 1614265330 + 301)).toBe(false)
  })
  it("sign with fresh secrets that verify", () => {
    const s = newWebhookSecret()
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
    expect(verify(s, { id: "d_1", timestamp: "100", signature: sign(s, "d_1", 100, "{}") }, "{}", 100)).toBe(true)
    expect(verify(newWebhookSecret(), { id: "d_1", timestamp: "100", signature: sign(s, "d_1", 100, "{}") }, "{}", 100)).toBe(false)
  })
})

describe("the webhook POST limiter", () => {
  it("runs at most its limit at once, starts the rest in the order they came, and passes results and failures on", async () => {
    const limit = makeLimiter(3)
    let running = 0
    let most = 0
    const started: Array<number> = []
    const gates: Array<() => void> = []
    const task = (i: number) => () => new Promise<number>((resolve, reject) => {
      running++
      most = Math.max(most, running)
      started.push(i)
      gates[i] = () => {
        running--
        if (i === 4) reject(new Error("no"))
        else resolve(i * 10)
      }
    })
    const results = Array.from({ length: 2000 }, (_, i) => limit(task(i)).then((v) => v, (e: Error) => e.message))
    await Promise.resolve()
    expect(started).toEqual([0, 1, 2])
    // Finish them as they start, out of order within each wave.
    for (let done = 0; done < 2000;) {
      const open = started.filter((i) => gates[i] !== undefined)
      for (const i of open.reverse()) {
        const g = gates[i]!
        delete gates[i]
        g()
        done++
      }
      await new Promise((r) => setImmediate(r))
    }
    const values = await Promise.all(results)
    expect(most).toBe(3)
    expect(started).toEqual(Array.from({ length: 2000 }, (_, i) => i))
    expect(values[4]).toBe("no")
    expect(values[1999]).toBe(19990)
    expect(values.filter((v) => typeof v === "number")).toHaveLength(1999)
  })
})

describe("message formatting", () => {
  it("names token, side, USD, wallet label and an explorer link, escaped for the messenger", () => {
    const c = contentOfRecord("whale_trade", {
      tx_hash: "0x" + "ab".repeat(32), log_index: 3, block: 19_000_000, ts: "2026-11-24T05:00:00Z", wallet: WALLETS[0]!, wallet_label: "Jump <Trading>",
      token: TOKENS[1]!.token, symbol: "PEPE", category: "dex_buy", amount: "1000", usd: 1_234_567, venue: "Uniswap V3", source: "rpc"
    })
    expect(c.title).toBe("Whale buy: $1.23M of PEPE")
    const text = messengerText(c, { folded: 2 })
    expect(text).toContain("Jump &lt;Trading&gt; bought $1.23M of PEPE on Uniswap V3")
    expect(text).toContain(`https://etherscan.io/tx/0x${"ab".repeat(32)}`)
    expect(text).toContain("+2 more matches")
    // The demo chain's generated transactions link nowhere.
    const demo = contentOfRecord("whale_trade", { ...c.data as any, usd: 1_234_567, source: "demo" })
    expect(demo.url).toBeNull()
    expect(messengerText(demo, { folded: 0 })).not.toContain("etherscan")
    expect(usd(950)).toBe("$950")
    expect(usd(12_500)).toBe("$12.5K")
  })
})
