/** What pricing advertises is what the alerts domain enforces: each public tier's alert limit equals its policy's. */
import { afterAll, beforeAll, expect, it } from "vitest"
import { policyOf } from "../../server/domains/alerts/Policy"
import type { Tier } from "../../schema/tiers"
import { startApp, type TestApp } from "../support/harness"

let app: TestApp
beforeAll(async () => {
  app = await startApp({ env: { WHALE_ROLES: "http" } })
})
afterAll(async () => {
  await app?.close()
})

it("advertises the alert limits /api/alerts enforces, tier by tier", async () => {
  const pricing = (await (await fetch(`${app.url}/api/pricing`)).json()) as { tiers: Array<{ name: Tier; alert_limit: number }> }
  expect(pricing.tiers.length).toBeGreaterThanOrEqual(4)
  for (const t of pricing.tiers) expect(t.alert_limit, t.name).toBe(policyOf(t.name).maxAlerts)
})
