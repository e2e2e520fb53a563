/**
 * A running app whose providers are local stand-ins started by the test (the SDK and product code paths are the
 * real ones; only the remote end is ours), on a controlled clock shared with the stand-ins.
 */
import { readFileSync } from "node:fs"
import { startApp, type StartOptions, type TestApp } from "../../support/harness"
import { bearer, createUser, login } from "../../support/auth"
import { fixturePath } from "../../support/fixtures"
import { StripeStandIn } from "../../../server/domains/billing/card/StandIn"
import { stripeSignature } from "../../../server/domains/billing/card/Signature"
import { CryptoStandIn } from "../../../server/domains/billing/crypto/StandIn"
import { controlledClock, type ControlledClock } from "./clock"

export const WEBHOOK_SECRET = "whsec_test_billing_0123456789abcdef"
export const IPN_SECRET = "ipn-test-secret-0123456789"

export interface BillingTestApp {
  readonly app: TestApp
  readonly stripe: StripeStandIn
  readonly crypto: CryptoStandIn
  readonly clock: ControlledClock
  readonly close: () => Promise<void>
}

export const startBillingApp = async (options: { autoDeliver?: boolean; env?: Record<string, string> } & Omit<StartOptions, "env" | "clock"> = {}): Promise<BillingTestApp> => {
  const clock = controlledClock()
  const stripe = new StripeStandIn({ apiKey: "sk_test_billing_key", webhookSecret: WEBHOOK_SECRET, pageBase: "http://127.0.0.1:9/pages", now: clock.now })
  const crypto = new CryptoStandIn({ apiKey: "crypto-test-key", ipnSecret: IPN_SECRET, pageBase: "http://127.0.0.1:9/pages", now: clock.now })
  await stripe.start()
  await crypto.start()
  const app = await startApp({
    ...options,
    clock: clock.clock,
    env: {
      STRIPE_SECRET_KEY: "sk_test_billing_key",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: stripe.url,
      CRYPTO_API_BASE: crypto.url,
      CRYPTO_API_KEY: "crypto-test-key",
      CRYPTO_IPN_SECRET: IPN_SECRET,
      DRIP_CHECK_MS: "100",
      ...options.env
    }
  }).catch(async (e) => {
    await stripe.stop()
    await crypto.stop()
    throw e
  })
  if (options.autoDeliver !== false) stripe.options.webhookUrl = `${app.url}/webhooks/cardprocessor`
  crypto.options.sink = async (body, signature) => {
    const res = await fetch(`${app.url}/webhooks/cryptoprocessor`, { method: "POST", headers: { "content-type": "application/json", "x-nowpayments-sig": signature }, body })
    await res.arrayBuffer()
    return res.status
  }
  return {
    app, stripe, crypto, clock,
    close: async () => {
      await app.close()
      await stripe.stop()
      await crypto.stop()
    }
  }
}

export interface SignedInUser {
  readonly id: number
  readonly email: string
  readonly headers: Record<string, string>
}

export const signedInUser = async (app: TestApp, email: string): Promise<SignedInUser> => {
  await createUser(app, { email })
  const { token } = await login(app, email)
  const [row] = await app.query<{ id: string }>("SELECT id FROM users WHERE email = $1", [email])
  return { id: Number(row!.id), email, headers: { ...bearer(token), "content-type": "application/json" } }
}

export const post = async (app: TestApp, path: string, headers: Record<string, string>, body?: unknown) => {
  const res = await fetch(`${app.url}${path}`, { method: "POST", headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const text = await res.text()
  let json: any = undefined
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: res.status, body: json, headers: res.headers }
}

export const tierOf = async (app: TestApp, headers: Record<string, string>) => {
  const res = await fetch(`${app.url}/auth/tier`, { headers })
  return ((await res.json()) as { tier: string }).tier
}

/** POSTs a raw payload to the card webhook with a signature header (made here unless given). */
export const postCardEvent = async (app: TestApp, payload: string, opts: { signature?: string; secret?: string; timestampSec?: number; now: number }) => {
  const header = opts.signature ?? stripeSignature(payload, opts.secret ?? WEBHOOK_SECRET, opts.timestampSec ?? Math.floor(opts.now / 1000))
  const res = await fetch(`${app.url}/webhooks/cardprocessor`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload })
  const text = await res.text()
  return { status: res.status, body: (() => { try { return JSON.parse(text) } catch { return text } })() as any }
}

/** A Stripe event fixture (read in place from ../shared/fixtures). */
export const stripeFixture = (name: string): any => JSON.parse(readFileSync(fixturePath("stripe-events", name), "utf8"))

export const count = async (app: TestApp, sql: string, params: ReadonlyArray<unknown> = []) =>
  Number((await app.query<{ n: string }>(sql, params))[0]!.n)
