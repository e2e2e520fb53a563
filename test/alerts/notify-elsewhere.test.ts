/**
 * Where the notifier runs: the fan-out sends what it records itself when the notifier actor runs in its process
 * (claimed as it is written, no `notify` message: see journey.test.ts), and publishes it on `notify` when WHALE_ACTORS
 * put the notifier in other processes. This process runs every actor but the notifier: a matching record's delivery
 * is recorded pending, announced on `notify`, and sent once by whoever handles that message (here the notifier's
 * service, as the notifier process would run it).
 */
import { Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { STREAMS } from "../../schema/streams"
import { CONSOLE_STREAMS } from "../../schema/ws"
import { AlertNotifier } from "../../server/domains/alerts/delivery/Notifier"
import { Bus } from "../../server/platform/infra/Bus"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { call, internalHeaders, newToken, record } from "./support"

let app: TestApp
let token: string
beforeAll(async () => {
  app = await startApp({
    env: { WHALE_ACTORS: "-notifier", INTERNAL_SECRET: "test-internal-secret-value", DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000" }
  })
  await createUser(app, { email: "elsewhere@example.com", tier: "whale" })
  token = (await login(app, "elsewhere@example.com")).token
}, 180_000)
afterAll(async () => {
  await app?.close()
})

const tail = (stream: string) => app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.tail(stream, 1000))).then((xs) => xs.map((x) => x.payload as any))

it("announces the deliveries on notify and leaves them pending when the notifier runs in another process", async () => {
  const t = newToken()
  const created = await call(app, "POST", "/api/alerts", { token, body: { type: "whale_trade", params: { token: t.symbol, min_usd: 100_000 }, channels: ["console"] } })
  expect(created.status).toBe(200)
  expect((await call(app, "POST", "/api/alerts/process-tx", { body: record({ ...t, usd: 300_000 }), headers: internalHeaders(app) })).status).toBe(200)

  const recorded = () => app.query<{ id: number; status: string }>(
    "SELECT d.id::int AS id, c.status FROM alert_deliveries d JOIN alert_delivery_channels c ON c.delivery_id = d.id WHERE d.alert_id = $1", [created.body.id])
  await waitFor(async () => (await recorded()).length === 1, 15_000)
  const [row] = await recorded()
  const announced = () => tail(STREAMS.notify).then((ms) => ms.filter((m) => (m.delivery_ids as Array<number>).includes(row!.id)))
  await waitFor(async () => (await announced()).length === 1, 15_000)
  // Nobody here sends it: still pending, no console event.
  expect((await recorded())[0]!.status).toBe("pending")
  expect((await tail(CONSOLE_STREAMS.user)).filter((e) => e.kind === "alert" && e.data.alert_id === created.body.id)).toHaveLength(0)

  // The notifier process's work, run here: sent once, even if the message is handled twice.
  for (let i = 0; i < 2; i++) await app.runtime.runPromise(Effect.flatMap(AlertNotifier, (n) => n.deliver([row!.id])))
  await waitFor(async () => (await recorded())[0]!.status === "sent", 15_000)
  expect((await tail(CONSOLE_STREAMS.user)).filter((e) => e.kind === "alert" && e.data.alert_id === created.body.id)).toHaveLength(1)
})
