/**
 * The crypto processor's HTTP API (NOWPayments-style): `CRYPTO_API_BASE`, `CRYPTO_API_KEY` (header `x-api-key`),
 * `CRYPTO_IPN_SECRET`. With no key (outside production) the stand-in (./StandIn.ts) runs in process. The currency
 * list is cached (CRYPTO_CURRENCIES_TTL_SECONDS). Provider failures become `ProviderFailed` (502).
 */
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { Duration, Effect } from "effect"
import { z } from "zod"
import { AppConfig } from "../../../platform/Config"
import { memo } from "../../../platform/infra/Memo"
import { BillingConfig, secret } from "../Config"
import { ProviderFailed, ProviderUnavailable } from "../Errors"
import { CryptoStandIn } from "./StandIn"

const Invoice = z.object({ id: z.union([z.string(), z.number()]).transform(String), invoice_url: z.string().min(1), order_id: z.string().nullish() })
const Currencies = z.object({ currencies: z.array(z.union([z.string(), z.object({ code: z.string() }).transform((c) => c.code)])) })

export interface InvoiceInput {
  readonly orderId: string
  readonly priceUsd: number
  readonly payCurrency: string | undefined
  readonly description: string
  readonly ipnUrl: string
  readonly successUrl: string
  readonly cancelUrl: string
}

export class CryptoGateway extends Effect.Service<CryptoGateway>()("app/billing/CryptoGateway", {
  scoped: Effect.gen(function* () {
    const app = yield* AppConfig
    const config = (yield* BillingConfig).crypto
    let apiKey = secret(config.apiKey)
    let ipnSecret = secret(config.ipnSecret)
    let base = config.apiBase ?? "https://api.nowpayments.io"
    let standIn: CryptoStandIn | null = null
    if (apiKey === undefined && config.standIn) {
      apiKey = `standin-${randomBytes(8).toString("hex")}`
      ipnSecret = `standin-ipn-${randomBytes(16).toString("hex")}`
      const s = new CryptoStandIn({ apiKey, ipnSecret, pageBase: "/billing/test-payments", stateFile: join(app.dataDir, "test-payments", "crypto.json") })
      base = yield* Effect.acquireRelease(Effect.promise(() => s.start()), () => Effect.promise(() => s.stop()))
      standIn = s
      yield* Effect.logInfo("crypto payments: no CRYPTO_API_KEY, using the local stand-in (test payments)")
    }
    base = base.replace(/\/$/, "")

    const request = <A>(method: "GET" | "POST", path: string, schema: z.ZodType<A>, body?: unknown): Effect.Effect<A, ProviderFailed | ProviderUnavailable> =>
      apiKey === undefined
        ? Effect.fail(new ProviderUnavailable({ provider: "crypto" }))
        : Effect.tryPromise({
            try: async (signal) => {
              const res = await fetch(`${base}${path}`, {
                method,
                signal,
                headers: { "x-api-key": apiKey!, ...(body ? { "content-type": "application/json" } : {}) },
                ...(body ? { body: JSON.stringify(body) } : {})
              })
              const json = await res.json().catch(() => ({}))
              if (!res.ok) throw new Error(`${res.status} ${String((json as { message?: unknown }).message ?? "").slice(0, 200)}`)
              return schema.parse(json)
            },
            catch: (e) => new ProviderFailed({ provider: "crypto", message: e instanceof Error ? e.message.slice(0, 300) : String(e) })
          }).pipe(Effect.timeoutFail({ duration: Duration.seconds(15), onTimeout: () => new ProviderFailed({ provider: "crypto", message: "timed out" }) }))

    const currencies = yield* memo({
      ttl: Duration.seconds(config.currenciesTtlSeconds),
      maxStale: Duration.hours(6),
      capacity: 1,
      compute: (_: "all") => request("GET", "/v1/currencies", Currencies).pipe(Effect.map((c) => c.currencies.map((x) => x.toLowerCase())))
    })

    return {
      configured: apiKey !== undefined,
      standIn,
      ipnSecret,
      currencies: () => currencies.get("all"),
      createInvoice: (input: InvoiceInput) =>
        request("POST", "/v1/invoice", Invoice, {
          price_amount: input.priceUsd,
          price_currency: "usd",
          ...(input.payCurrency ? { pay_currency: input.payCurrency } : {}),
          order_id: input.orderId,
          order_description: input.description,
          ipn_callback_url: input.ipnUrl,
          success_url: input.successUrl,
          cancel_url: input.cancelUrl
        })
    } as const
  })
}) {}
