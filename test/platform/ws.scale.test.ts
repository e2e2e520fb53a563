/**
 * Several http processes behind a load balancer: each relays the shared streams to its own clients, every message
 * has the same seq on every process, and a client resumes on another process without gaps or duplicates.
 * Needs Redis (the in-process bus cannot be shared).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seqOfId } from "../../schema/ws"
import { bearer, createUser, login } from "../support/auth"
import { skipWithout, startApp, type TestApp } from "../support/harness"
import { chainTx, openSocket, publishTrades, type TestSocket } from "../support/ws"

const skip = skipWithout("REDIS_URL") || skipWithout("DATABASE_URL")

describe.skipIf(skip)(`two http processes on one Redis${skip ? " (skipped: REDIS_URL and DATABASE_URL not set)" : ""}`, () => {
  let a: TestApp
  let b: TestApp
  let token: string
  beforeAll(async () => {
    // One deployment: the same session secret on both processes.
    const env = { WHALE_ROLES: "http", WS_POLL_MS: "50", SESSION_SECRET: "scale-test-secret-0123456789abcdef0123456789" }
    a = await startApp({ env })
    b = await startApp({ env, databaseUrl: a.env.DATABASE_URL!, redisPrefix: a.env.REDIS_PREFIX! })
    await createUser(a, { email: "lb@example.com" })
    token = (await login(a, "lb@example.com")).token
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  const follow = async (app: TestApp, extra: Record<string, unknown> = {}): Promise<TestSocket> => {
    const s = await openSocket(app, { headers: bearer(token) })
    s.send({ type: "subscribe", topic: "feed:trades", ...extra })
    await s.waitFor((f) => f.type === "subscribed")
    return s
  }

  it("delivers each trade to the clients of both processes with the same seq", async () => {
    const [onA, onB] = await Promise.all([follow(a), follow(b)])
    const ids = await publishTrades(b, [chainTx(1), chainTx(2)])
    const last = seqOfId(ids[1]!)
    await Promise.all([onA.waitFor((f) => f.seq === last), onB.waitFor((f) => f.seq === last)])
    expect(onA.data("feed:trades").map((f) => f.seq)).toEqual(ids.map((id) => seqOfId(id)))
    expect(onB.data("feed:trades")).toEqual(onA.data("feed:trades"))
    await Promise.all([onA.close(), onB.close()])
  })

  it("resumes on the other process from the seq the first one gave", async () => {
    const onA = await follow(a)
    const [first] = await publishTrades(a, [chainTx(10)])
    await onA.waitFor((f) => f.seq === seqOfId(first!))
    await onA.close()
    const missed = (await publishTrades(a, [chainTx(11), chainTx(12), chainTx(13)])).map((id) => seqOfId(id)!)
    const onB = await follow(b, { since_seq: seqOfId(first!) })
    const later = (await publishTrades(a, [chainTx(14)])).map((id) => seqOfId(id)!)
    await onB.waitFor((f) => f.seq === later[0])
    expect(onB.data("feed:trades").map((f) => f.seq)).toEqual([...missed, ...later])
    await onB.close()
  })
})
