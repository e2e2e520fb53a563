/**
 * The operators' topic end to end: every process reports its actors on `ops.actors`, the hub relays them to
 * administrators as `ops:actors`, and `POST /ops/actors/{name}/restart` restarts an actor wherever it runs, the
 * dashboard seeing it go restarting → running.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OpsReport } from "../../schema/ws"
import { bearer, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { openSocket, type Frame } from "../support/ws"

let app: TestApp
let admin: string
let trader: string
beforeAll(async () => {
  app = await startApp({ env: { OPS_REPORT_MS: "300", DEMO_HISTORY_BLOCKS: "2", DEMO_BLOCK_MS: "60000" } })
  await createUser(app, { email: "ops@example.com", admin: true })
  await createUser(app, { email: "trader@example.com" })
  admin = (await login(app, "ops@example.com")).token
  trader = (await login(app, "trader@example.com")).token
})
afterAll(async () => {
  await app?.close()
})

const report = (f: Frame) => (f.topic === "ops:actors" && f.seq !== undefined ? (f.data as OpsReport) : null)
const actorIn = (f: Frame, name: string) => report(f)?.actors.find((a) => a.name === name)

describe("ops:actors", () => {
  it("sends administrators each process's actors with their health, bus and database figures", async () => {
    const s = await openSocket(app, { headers: bearer(admin) })
    s.send({ type: "subscribe", topic: "ops:actors" })
    // The newest report may predate this connection: wait for one that counts it.
    const first = await s.waitFor((f) => actorIn(f, "mail-outbox")?.state === "running" && (report(f)!.ws?.connections ?? 0) >= 1, 10_000)
    const r = report(first)!
    expect(r.pid).toBe(process.pid)
    expect(r.roles).toEqual(expect.arrayContaining(["http", "actors"]))
    expect(r.bus).toMatchObject({ kind: process.env.REDIS_URL ? "redis" : "memory", ok: true })
    expect(r.db).toMatchObject({ ok: true, max: 5 })
    expect(r.streams.map((x) => x.name)).toContain("chain.tx")
    for (const a of r.actors) {
      expect(a).toHaveProperty("handled_per_sec")
      expect(a).toHaveProperty("last_heartbeat")
      expect(a).toHaveProperty("dead_letters")
    }
    // Reports keep coming (rates, lag, heartbeats), each with a greater seq.
    const seq = first.seq as number
    const next = await s.waitFor((f) => report(f) !== null && f.seq > seq, 5_000)
    expect(next.seq).toBeGreaterThan(seq)
    await s.close()
  })

  it("restarts an actor for an administrator, which the topic shows live", async () => {
    const s = await openSocket(app, { headers: bearer(admin) })
    s.send({ type: "subscribe", topic: "ops:actors" })
    const before = actorIn(await s.waitFor((f) => actorIn(f, "mail-outbox")?.state === "running", 10_000), "mail-outbox")!
    const res = await fetch(`${app.url}/ops/actors/mail-outbox/restart`, { method: "POST", headers: bearer(admin) })
    expect(res.status).toBe(202)
    expect(await res.json()).toMatchObject({ accepted: true, actor: "mail-outbox", processes: 1 })
    const after = await s.waitFor((f) => {
      const a = actorIn(f, "mail-outbox")
      return a !== undefined && a.restarts === before.restarts + 1 && a.state === "running"
    }, 10_000)
    expect(actorIn(after, "mail-outbox")!.started_at).not.toBe(before.started_at)
    await s.close()
  })

  it("refuses the restart to anonymous callers and non-administrators, and unknown actors", async () => {
    expect((await fetch(`${app.url}/ops/actors/mail-outbox/restart`, { method: "POST" })).status).toBe(401)
    expect((await fetch(`${app.url}/ops/actors/mail-outbox/restart`, { method: "POST", headers: bearer(trader) })).status).toBe(403)
    const unknown = await fetch(`${app.url}/ops/actors/no-such-actor/restart`, { method: "POST", headers: bearer(admin) })
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).code).toBe("actor_not_found")
  })
})
