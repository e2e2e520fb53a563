/**
 * Test payments never run in production (docs/security.md): NODE_ENV=production gets no stand-in whatever
 * BILLING_STANDIN says, and a start configured for test payments there (BILLING_STANDIN=on, a Stripe test-mode key
 * without BILLING_ALLOW_TEST_KEYS=true) is refused with the reason.
 */
import { Cause, ConfigProvider, Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { BillingConfig } from "../../server/domains/billing/Config"

const load = (env: Record<string, string>) =>
  Effect.runPromiseExit(BillingConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
const failure = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "started")

describe("test payments and production", () => {
  it("runs the stand-ins outside production when no provider is configured, and never in production", async () => {
    const dev = await load({})
    if (!Exit.isSuccess(dev)) throw new Error("config did not load")
    expect([dev.value.card.standIn, dev.value.crypto.standIn]).toEqual([true, true])
    const prod = await load({ NODE_ENV: "production" })
    if (!Exit.isSuccess(prod)) throw new Error("config did not load")
    expect([prod.value.card.standIn, prod.value.crypto.standIn]).toEqual([false, false])
    const prodOff = await load({ NODE_ENV: "production", BILLING_STANDIN: "off", STRIPE_SECRET_KEY: "sk_live_abc" })
    expect(Exit.isSuccess(prodOff)).toBe(true)
  })

  it("refuses a production start configured for test payments, with the reason", async () => {
    const on = failure(await load({ NODE_ENV: "production", BILLING_STANDIN: "on" }))
    expect(on).toContain("Refusing to start: test payments are configured with NODE_ENV=production (BILLING_STANDIN=on)")
    for (const key of ["sk_test_51abc", "rk_test_51abc"]) {
      expect(failure(await load({ NODE_ENV: "production", STRIPE_SECRET_KEY: key }))).toContain("test-mode key")
    }
    // A staging deployment says so explicitly.
    expect(Exit.isSuccess(await load({ NODE_ENV: "production", STRIPE_SECRET_KEY: "sk_test_51abc", BILLING_ALLOW_TEST_KEYS: "true" }))).toBe(true)
    // Outside production a test key is the normal case.
    expect(Exit.isSuccess(await load({ STRIPE_SECRET_KEY: "sk_test_51abc" }))).toBe(true)
  })
})
