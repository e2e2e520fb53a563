/**
 * The hosted pages of the local stand-ins (embedded default only, labelled "test payments"): the checkout page
 * pays or cancels a Checkout Session, the portal page cancels a subscription or confirms a plan change, the crypto
 * page pays an invoice (in full or in part) or lets it expire. Each action makes the stand-in emit exactly what the
 * provider would, signed, to our own webhook receivers. Nothing here exists when a real provider is configured.
 * Their contracts stay here, not in schema/http: pages and form posts answered with redirects, of a test stand-in.
 */
import { Effect } from "effect"
import { z } from "zod"
import { endpoint } from "../../../schema/http/endpoint"
import { BadRequest, NotFound } from "../../platform/http/Errors"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { escapeHtml, page } from "../../platform/http/Layout"
import { CardGateway } from "./card/CardGateway"
import { CryptoGateway } from "./crypto/CryptoGateway"

const Id = z.object({ id: z.string().regex(/^[A-Za-z0-9_]{4,80}$/) })
const BANNER = `<p style="background:#9a6700;color:#fff;padding:.5rem 1rem;border-radius:6px"><strong>TEST PAYMENTS</strong> — a local stand-in of the payment provider. Nothing is charged.</p>`
const button = (action: string, label: string) =>
  `<form method="post" action="${escapeHtml(action)}" style="display:inline-block;margin:.25rem"><button type="submit" style="font-size:1rem;padding:.5rem 1rem">${escapeHtml(label)}</button></form>`
const html = (title: string, body: string) => Reply.html(page(title, BANNER + body), 200, [["cache-control", "no-store"]])
const missing = () => new NotFound({ message: "No such test payment", code: "not_found" })
const guarded = <A>(f: () => A) =>
  Effect.try({ try: f, catch: (e) => (e instanceof Error && /No such/.test(e.message) ? missing() : new BadRequest({ message: e instanceof Error ? e.message : "refused", code: "test_payment_refused" })) })
const base = "/billing/test-payments"
/** The stand-ins only ever send the browser back to our own pages: keep the path, whatever the host. */
const local = (url: string | null | undefined) => {
  if (!url) return "/billing"
  try {
    const u = new URL(url, "http://local")
    return `${u.pathname}${u.search}`
  } catch {
    return "/billing"
  }
}

export const TestPaymentRoutes = Effect.gen(function* () {
  const card = (yield* CardGateway).standIn
  const crypto = (yield* CryptoGateway).standIn
  const tags = ["billing"]
  const cardRoutes = card === null ? [] : [
    route(endpoint({ method: "GET", path: `${base}/checkout/{id}`, summary: "Test payments: the checkout page", tags, params: Id, produces: "text/html" }), {
      guard: Guard.anon,
      handler: ({ params }) => Effect.gen(function* () {
        const s = card.sessions.get(params.id)
        if (!s) return yield* Effect.fail(missing())
        const price = card.prices.get(s._price)
        const amount = price ? `$${(price.unit_amount / 100).toFixed(2)} per ${price.recurring?.interval ?? "period"}` : ""
        return html("Checkout", `<h1>Checkout</h1><p>${escapeHtml(String(s.metadata?.tier ?? ""))} ${escapeHtml(amount)}</p><p>Status: ${escapeHtml(s.status)}</p>` +
          (s.status === "open" ? button(`${base}/checkout/${s.id}/pay`, "Pay (test card)") + button(`${base}/checkout/${s.id}/cancel`, "Cancel") : ""))
      })
    }),
    route(endpoint({
      method: "POST", path: `${base}/checkout/{id}/{action}`, summary: "Test payments: pay or cancel a checkout", tags,
      params: z.object({ id: Id.shape.id, action: z.enum(["pay", "cancel"]) })
    }), {
      guard: Guard.anon,
      handler: ({ params }) => Effect.gen(function* () {
        const s = card.sessions.get(params.id)
        if (!s) return yield* Effect.fail(missing())
        if (params.action === "pay") yield* guarded(() => card.completeCheckout(params.id))
        else yield* guarded(() => card.expireCheckout(params.id))
        const to = params.action === "pay" ? String(s.success_url).replace("{CHECKOUT_SESSION_ID}", s.id) : s.cancel_url
        return Reply.redirect(local(to), 303)
      })
    }),
    route(endpoint({ method: "GET", path: `${base}/portal/{id}`, summary: "Test payments: the customer portal", tags, params: Id, produces: "text/html" }), {
      guard: Guard.anon,
      handler: ({ params }) => Effect.gen(function* () {
        const p = card.portals.get(params.id)
        if (!p) return yield* Effect.fail(missing())
        const subs = [...card.subscriptions.values()].filter((s) => s.customer === p.customer)
        const confirm = p.flow?.type === "subscription_update_confirm"
          ? `<h2>Confirm your plan change</h2><p>New price: ${escapeHtml(String(card.prices.get(p.flow.subscription_update_confirm.items[0].price)?.unit_amount / 100))} USD per year</p>` +
            button(`${base}/portal/${p.id}/confirm`, "Confirm")
          : ""
        const list = subs.map((s) => {
          const item = s.items.data[0]
          return `<li>${escapeHtml(String(s.metadata?.tier ?? item.price.id))}, ${escapeHtml(item.price.recurring?.interval ?? "")}, ${escapeHtml(s.status)}` +
            `${s.cancel_at_period_end ? " (cancels at period end)" : ""} — renews ${new Date(item.current_period_end * 1000).toISOString().slice(0, 10)}` +
            (s.status !== "canceled" && !s.cancel_at_period_end ? " " + button(`${base}/portal/${p.id}/cancel-${s.id}`, "Cancel at period end") : "") + "</li>"
        }).join("")
        return html("Billing portal", `<h1>Billing portal</h1>${confirm}<h2>Subscriptions</h2><ul>${list || "<li>none</li>"}</ul><p>Payment method: test card •••• 4242</p>` +
          `<p><a href="${escapeHtml(local(p.return_url))}">Back</a></p>`)
      })
    }),
    route(endpoint({
      method: "POST", path: `${base}/portal/{id}/{action}`, summary: "Test payments: confirm a plan change or cancel in the portal", tags,
      params: z.object({ id: Id.shape.id, action: z.string().regex(/^(confirm|cancel-sub_[A-Za-z0-9]+)$/) })
    }), {
      guard: Guard.anon,
      handler: ({ params }) => Effect.gen(function* () {
        const p = card.portals.get(params.id)
        if (!p) return yield* Effect.fail(missing())
        if (params.action === "confirm") yield* guarded(() => card.confirmPortalUpdate(p.id))
        else {
          const sub = card.subscriptions.get(params.action.slice("cancel-".length))
          if (!sub || sub.customer !== p.customer) return yield* Effect.fail(missing())
          yield* guarded(() => card.portalCancel(sub.id))
        }
        return Reply.redirect(local(p.return_url), 303)
      })
    })
  ]
  const cryptoRoutes = crypto === null ? [] : [
    route(endpoint({ method: "GET", path: `${base}/crypto/{id}`, summary: "Test payments: the crypto invoice page", tags, params: Id, produces: "text/html" }), {
      guard: Guard.anon,
      handler: ({ params }) => Effect.gen(function* () {
        const inv = crypto.invoices.get(params.id)
        if (!inv) return yield* Effect.fail(missing())
        return html("Crypto invoice", `<h1>Crypto invoice</h1><p>${escapeHtml(inv.order_description ?? "")}: ${escapeHtml(inv.price_amount)} USD` +
          `${inv.pay_currency ? ` in ${escapeHtml(inv.pay_currency.toUpperCase())}` : ""}</p>` +
          button(`${base}/crypto/${inv.id}/pay`, "Pay in full") + button(`${base}/crypto/${inv.id}/partial`, "Pay half") + button(`${base}/crypto/${inv.id}/expire`, "Let it expire"))
      })
    }),
    route(endpoint({
      method: "POST", path: `${base}/crypto/{id}/{action}`, summary: "Test payments: pay, half-pay or expire a crypto invoice", tags,
      params: z.object({ id: Id.shape.id, action: z.enum(["pay", "partial", "expire"]) })
    }), {
      guard: Guard.anon,
      handler: ({ params }) => Effect.gen(function* () {
        const inv = crypto.invoices.get(params.id)
        if (!inv) return yield* Effect.fail(missing())
        yield* Effect.promise(() => (params.action === "pay" ? crypto.pay(inv.id) : params.action === "partial" ? crypto.payPartially(inv.id) : crypto.expire(inv.id)))
        return Reply.redirect(local(params.action === "pay" ? inv.success_url : inv.cancel_url), 303)
      })
    })
  ]
  return [...cardRoutes, ...cryptoRoutes]
})
