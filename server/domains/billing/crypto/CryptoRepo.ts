/** SQL of crypto invoices and payments (migration 0100). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ProviderInterval } from "../Plans"
import { spanned } from "../../../platform/ops/Spans"

export interface InvoiceRow {
  readonly id: number
  readonly order_id: string
  readonly provider_invoice_id: string | null
  readonly user_id: number
  readonly tier: string
  readonly interval: ProviderInterval
  readonly price_usd: string | number
  readonly pay_currency: string | null
  readonly invoice_url: string | null
  readonly status: string
  readonly created_at: Date
  readonly paid_at: Date | null
}

export class CryptoRepo extends Effect.Service<CryptoRepo>()("app/billing/CryptoRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie
    return spanned("CryptoRepo", {
      insertInvoice: (i: { orderId: string; userId: number; tier: string; interval: ProviderInterval; priceUsd: number; payCurrency: string | null }) =>
        sql<InvoiceRow>`
          INSERT INTO crypto_invoices (order_id, user_id, tier, interval, price_usd, pay_currency)
          VALUES (${i.orderId}, ${i.userId}, ${i.tier}, ${i.interval}, ${i.priceUsd}, ${i.payCurrency}) RETURNING *`.pipe(Effect.map((r) => r[0]!), die),
      setProviderInvoice: (id: number, providerId: string, url: string) =>
        sql`UPDATE crypto_invoices SET provider_invoice_id = ${providerId}, invoice_url = ${url} WHERE id = ${id}`.pipe(Effect.asVoid, die),
      markInvoiceFailed: (id: number) => sql`UPDATE crypto_invoices SET status = 'not_created' WHERE id = ${id}`.pipe(Effect.asVoid, die),
      byOrder: (orderId: string) => sql<InvoiceRow>`SELECT * FROM crypto_invoices WHERE order_id = ${orderId} FOR UPDATE`.pipe(Effect.map((r) => r[0]), die),
      setInvoiceStatus: (id: number, status: string, paidAt: Date | null) =>
        sql`UPDATE crypto_invoices SET status = ${status}, paid_at = COALESCE(${paidAt}, paid_at) WHERE id = ${id}`.pipe(Effect.asVoid, die),
      openOf: (userId: number, limit: number) =>
        sql<InvoiceRow>`SELECT * FROM crypto_invoices WHERE user_id = ${userId} ORDER BY id DESC LIMIT ${limit}`.pipe(die),
      /** Takes a payment id and status; false when this pair was seen before. */
      takePayment: (p: { paymentId: string; status: string; invoiceId: number | null; priceAmount: number | null; actuallyPaid: number | null; payCurrency: string | null }) =>
        sql<{ payment_id: string }>`
          INSERT INTO crypto_payments (payment_id, status, invoice_id, price_amount, actually_paid, pay_currency, outcome)
          VALUES (${p.paymentId}, ${p.status}, ${p.invoiceId}, ${p.priceAmount}, ${p.actuallyPaid}, ${p.payCurrency}, 'received')
          ON CONFLICT DO NOTHING RETURNING payment_id`.pipe(Effect.map((r) => r.length === 1), die),
      setPaymentOutcome: (paymentId: string, status: string, outcome: string) =>
        sql`UPDATE crypto_payments SET outcome = ${outcome} WHERE payment_id = ${paymentId} AND status = ${status}`.pipe(Effect.asVoid, die)
    } as const)
  })
}) {}
