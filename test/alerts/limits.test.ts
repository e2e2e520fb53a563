/** What pricing advertises is what the alerts domain enforces: each public tier's alert limit equals its policy's. */
import { Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { policyOf } from "../../server/domains/alerts/Policy"
import { Pricing } from "../../server/domains/pricing/Pricing"
import type { Tier } from "../../schema/tiers"
import { startServices, type TestServices } from "../support/serviceTest"

// A service test: the pricing service's answer is the body GET /api/pricing sends as it is (pricing/Http.ts).
let app: TestServices<Pricing>
beforeAll(async () => {
  app = await startServices(Pricing.Default)
})
afterAll(async () => {
  await app?.close()
})

it("advertises the alert limits /api/alerts enforces, tier by tier", async () => {
  const { bytes } = await app.runtime.runPromise(Effect.flatMap(Pricing, (p) => p.current()))
  const pricing = JSON.parse(Buffer.from(bytes).toString("utf8")) as { tiers: Array<{ name: Tier; alert_limit: number }> }
  expect(pricing.tiers.length).toBeGreaterThanOrEqual(4)
  for (const t of pricing.tiers) expect(t.alert_limit, t.name).toBe(policyOf(t.name).maxAlerts)
})
