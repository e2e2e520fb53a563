/**
 * The billing domain's settings (read once, here). Secrets are Redacted.
 *
 *  STRIPE_SECRET_KEY       card provider API key; unset → the local stand-in ("test payments") outside production
 *  STRIPE_WEBHOOK_SECRET   `whsec_…` of the webhook endpoint (required with STRIPE_SECRET_KEY)
 *  STRIPE_PRICES           optional JSON `{"pro_monthly":"price_…","pro_yearly":"price_…",…}`; without it
 *                          checkout sends inline `price_data` from our pricing table
 *  STRIPE_API_BASE         optional `http(s)://host:port` of the provider's API (tests, the stand-in)
 *  STRIPE_WEBHOOK_TOLERANCE_SECONDS  signature timestamp tolerance (default 300)
 *  BILLING_STANDIN         `auto` (default: stand-ins when the provider is not configured and NODE_ENV is not
 *                          production), `on`, `off`. Test payments never run in production: `on` there, or a
 *                          provider test-mode key (`sk_test_…`, `rk_test_…`) without BILLING_ALLOW_TEST_KEYS=true
 *                          (a staging deployment), refuses the start (TestPaymentsInProduction)
 *  CRYPTO_API_BASE, CRYPTO_API_KEY, CRYPTO_IPN_SECRET   the crypto processor (NOWPayments-style)
 *  DRIP_CHECK_MS           how often the drip-mailer looks for due mail (default 60000)
 *  DRIP_INTERVAL_HOURS     time between two drip mails (default 72)
 *  WAITLIST_CONFIRMS_PER_IP_PER_HOUR  confirmation mails one client address may cause per hour (default 10)
 *  TRIAL_REMINDER_HOURS    how long before a trial ends its reminder goes (default 48)
 */
import { Config, Effect, Option, Redacted } from "effect"
import { z } from "zod"

const optional = (name: string) => Config.option(Config.nonEmptyString(name)).pipe(Config.map(Option.getOrUndefined))
const optionalSecret = (name: string) => Config.option(Config.redacted(name)).pipe(Config.map(Option.getOrUndefined))

const PricesMap = z.record(z.string().regex(/^(pro|alpha|whale)_(monthly|yearly)$/), z.string().min(1))

export interface ApiBase {
  readonly host: string
  readonly port: number
  readonly protocol: "http" | "https"
}

export const parseApiBase = (raw: string): ApiBase => {
  const url = new URL(raw)
  const protocol = url.protocol === "http:" ? "http" : "https"
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === "http" ? 80 : 443, protocol }
}

/** A production start configured for test payments: anyone could "pay" with a test card and become whale. */
export class TestPaymentsInProduction extends Error {
  constructor(reason: string) {
    super(`Refusing to start: test payments are configured with NODE_ENV=production (${reason}). Configure the real providers (see docs/domains/billing.md).`)
  }
}

const TEST_KEY = /^(sk|rk)_test_/

export const BillingConfig = Effect.gen(function* () {
  const production = (yield* Config.string("NODE_ENV").pipe(Config.withDefault("development"))) === "production"
  const standInSetting = yield* Config.literal("auto", "on", "off")("BILLING_STANDIN").pipe(Config.withDefault("auto" as const))
  const pricesRaw = yield* optional("STRIPE_PRICES")
  const prices = pricesRaw === undefined ? {} : PricesMap.parse(JSON.parse(pricesRaw))
  const apiBase = yield* optional("STRIPE_API_BASE")
  const cryptoBase = yield* optional("CRYPTO_API_BASE")
  const stripeKey = yield* optionalSecret("STRIPE_SECRET_KEY")
  const cryptoKey = yield* optionalSecret("CRYPTO_API_KEY")
  if (production && standInSetting === "on") return yield* Effect.die(new TestPaymentsInProduction("BILLING_STANDIN=on"))
  const allowTestKeys = yield* Config.boolean("BILLING_ALLOW_TEST_KEYS").pipe(Config.withDefault(false))
  if (production && !allowTestKeys && stripeKey !== undefined && TEST_KEY.test(Redacted.value(stripeKey))) {
    return yield* Effect.die(new TestPaymentsInProduction("STRIPE_SECRET_KEY is a test-mode key; BILLING_ALLOW_TEST_KEYS=true allows it on a staging deployment"))
  }
  const standIn = (configured: boolean) => !production && (standInSetting === "on" || (standInSetting === "auto" && !configured))
  return {
    card: {
      secretKey: stripeKey,
      webhookSecret: yield* optionalSecret("STRIPE_WEBHOOK_SECRET"),
      prices: prices as Readonly<Record<string, string>>,
      apiBase: apiBase === undefined ? undefined : parseApiBase(apiBase),
      toleranceSeconds: yield* Config.integer("STRIPE_WEBHOOK_TOLERANCE_SECONDS").pipe(Config.withDefault(300)),
      /** Run the in-process stand-in of the provider. */
      standIn: standIn(stripeKey !== undefined)
    },
    crypto: {
      apiBase: cryptoBase,
      apiKey: cryptoKey,
      ipnSecret: yield* optionalSecret("CRYPTO_IPN_SECRET"),
      standIn: standIn(cryptoKey !== undefined),
      /** How long the currency list is reused. */
      currenciesTtlSeconds: yield* Config.integer("CRYPTO_CURRENCIES_TTL_SECONDS").pipe(Config.withDefault(600))
    },
    drip: {
      checkMs: yield* Config.integer("DRIP_CHECK_MS").pipe(Config.withDefault(60_000)),
      intervalHours: yield* Config.number("DRIP_INTERVAL_HOURS").pipe(Config.withDefault(72)),
      confirmsPerIpPerHour: yield* Config.integer("WAITLIST_CONFIRMS_PER_IP_PER_HOUR").pipe(Config.withDefault(10)),
      trialReminderHours: yield* Config.number("TRIAL_REMINDER_HOURS").pipe(Config.withDefault(48))
    }
  } as const
})

export type BillingSettings = Effect.Effect.Success<typeof BillingConfig>
export const secret = (r: Redacted.Redacted<string> | undefined) => (r === undefined ? undefined : Redacted.value(r))
