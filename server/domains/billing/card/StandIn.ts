/**
 * A local stand-in of the card provider (Stripe): an HTTP server on 127.0.0.1 speaking the part of Stripe's REST
 * API that our `stripe` SDK calls make — customers, prices, Checkout Sessions, billing portal sessions,
 * subscriptions — with form-encoded requests, Stripe-shaped JSON objects and errors, API-key auth and
 * `Idempotency-Key` replay. What a real customer does on Stripe's hosted pages (pay, cancel, confirm a plan change)
 * and what time does (renewals, period ends, failed charges) are methods here; each emits the events Stripe would
 * emit, signed like Stripe (`Stripe-Signature`), delivered to the webhook URL or kept for a test to post itself.
 *
 * Used by the tests and by the embedded default (no STRIPE_SECRET_KEY: "test payments"). Never in production
 * unless asked for. The SDK and our product code are the same either way; only the remote end is replaced.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { addPeriod, type ProviderInterval } from "../Plans"
import { loadStandInState, saveStandInState } from "../StandInState"
import { parseStripeForm, stripeSignature } from "./Signature"

export const STANDIN_API_VERSION = "2026-10-28.endive"

type Obj = Record<string, any>

export interface StandInEvent {
  readonly id: string
  readonly type: string
  readonly payload: string
  readonly created: number
}

export interface StripeStandInOptions {
  readonly apiKey: string
  readonly webhookSecret: string
  /** Where emitted events are POSTed (`auto`); without it events are only kept in `events`. */
  webhookUrl?: string
  /** Base of the hosted pages' URLs (checkout, portal): `${pageBase}/checkout/<id>`. */
  readonly pageBase: string
  /** The provider's clock (ms); tests move it. */
  readonly now?: () => number
  /** Deliver events in process (raw payload and its signature header) when the app's own URL is not known. */
  sink?: (payload: string, signature: string) => Promise<number>
  /** Keep customers, prices, sessions, subscriptions and invoices in this file across restarts (embedded default). */
  readonly stateFile?: string
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`

export class StripeError extends Error {
  constructor(readonly status: number, readonly type: string, message: string, readonly code?: string, readonly param?: string) {
    super(message)
  }
}

const missing = (kind: string, what: string) => new StripeError(404, "invalid_request_error", `No such ${kind}: '${what}'`, "resource_missing", "id")
const required = (param: string) => new StripeError(400, "invalid_request_error", `Missing required param: ${param}.`, "parameter_missing", param)

export class StripeStandIn {
  readonly customers = new Map<string, Obj>()
  readonly prices = new Map<string, Obj>()
  readonly sessions = new Map<string, Obj>()
  readonly portals = new Map<string, Obj>()
  readonly subscriptions = new Map<string, Obj>()
  readonly invoices = new Map<string, Obj>()
  /** Every event emitted, in order. */
  readonly events: Array<StandInEvent> = []
  /** Requests received (method and path), for tests. */
  readonly requests: Array<{ method: string; path: string; body: Obj }> = []
  /** Customers whose next charge fails. */
  readonly failingCustomers = new Set<string>()
  private readonly idempotent = new Map<string, { status: number; body: string }>()
  private server: Server | undefined
  url = ""

  constructor(readonly options: StripeStandInOptions) {}

  now(): number {
    return this.options.now ? this.options.now() : Date.now()
  }
  private sec(): number {
    return Math.floor(this.now() / 1000)
  }

  private get state() {
    const { customers, prices, sessions, portals, subscriptions, invoices } = this
    return { customers, prices, sessions, portals, subscriptions, invoices }
  }
  private persist(): void {
    saveStandInState(this.options.stateFile, this.state)
  }

  async start(): Promise<string> {
    loadStandInState(this.options.stateFile, this.state)
    this.server = createServer((req, res) => void this.handle(req, res))
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this.url
  }

  async stop(): Promise<void> {
    const s = this.server
    if (!s) return
    s.closeAllConnections()
    await new Promise<void>((resolve) => s.close(() => resolve()))
  }

  // ---- HTTP -------------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Array<Buffer> = []
    for await (const c of req) chunks.push(c as Buffer)
    const raw = Buffer.concat(chunks).toString("utf8")
    const url = new URL(req.url ?? "/", "http://x")
    const send = (status: number, body: string) => {
      res.writeHead(status, { "content-type": "application/json", "request-id": id("req"), "stripe-version": STANDIN_API_VERSION })
      res.end(body)
    }
    try {
      if (req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
        throw new StripeError(401, "invalid_request_error", "Invalid API Key provided: sk_****")
      }
      const body = req.method === "GET" || req.method === "DELETE" ? parseStripeForm(url.search.slice(1)) : parseStripeForm(raw)
      const key = req.method === "POST" ? req.headers["idempotency-key"] : undefined
      const cacheKey = typeof key === "string" ? `${req.method} ${url.pathname} ${key}` : undefined
      if (cacheKey && this.idempotent.has(cacheKey)) {
        const hit = this.idempotent.get(cacheKey)!
        return send(hit.status, hit.body)
      }
      this.requests.push({ method: req.method ?? "GET", path: url.pathname, body })
      const result = JSON.stringify(this.route(req.method ?? "GET", url.pathname, body))
      if (req.method !== "GET") this.persist()
      if (cacheKey) this.idempotent.set(cacheKey, { status: 200, body: result })
      send(200, result)
    } catch (e) {
      const err = e instanceof StripeError ? e : new StripeError(500, "api_error", "An unknown error occurred")
      send(err.status, JSON.stringify({ error: { type: err.type, message: err.message, ...(err.code ? { code: err.code } : {}), ...(err.param ? { param: err.param } : {}) } }))
    }
  }

  private route(method: string, path: string, body: Obj): Obj {
    const seg = path.split("/").filter(Boolean)
    if (seg[0] !== "v1") throw new StripeError(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path}).`)
    const [, a, b, c] = seg
    if (a === "customers" && method === "POST" && !b) return this.createCustomer(body)
    if (a === "customers" && method === "GET" && b) return this.get(this.customers, "customer", b)
    if (a === "prices" && method === "POST" && !b) return this.createPrice(body)
    if (a === "prices" && method === "GET" && !b) return this.listPrices(body)
    if (a === "prices" && method === "GET" && b) return this.get(this.prices, "price", b)
    if (a === "checkout" && b === "sessions" && method === "POST" && !c) return this.createSession(body)
    if (a === "checkout" && b === "sessions" && method === "GET" && c) return this.get(this.sessions, "checkout.session", c)
    if (a === "billing_portal" && b === "sessions" && method === "POST") return this.createPortal(body)
    if (a === "subscriptions" && method === "POST" && !b) return this.createSubscription(body)
    if (a === "subscriptions" && method === "GET" && b) return this.get(this.subscriptions, "subscription", b)
    if (a === "subscriptions" && method === "POST" && b) return this.updateSubscription(b, body)
    if (a === "subscriptions" && method === "DELETE" && b) return this.cancelNow(b)
    if (a === "invoices" && method === "GET" && b) return this.get(this.invoices, "invoice", b)
    throw new StripeError(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path}).`)
  }

  private get(map: Map<string, Obj>, kind: string, key: string): Obj {
    const found = map.get(key)
    if (!found) throw missing(kind, key)
    return found
  }

  // ---- resources --------------------------------------------------------------------------------------------

  private createCustomer(body: Obj): Obj {
    const customer = {
      id: id("cus"), object: "customer", created: this.sec(), email: body.email ?? null, name: body.name ?? null,
      metadata: body.metadata ?? {}, livemode: false, invoice_settings: { default_payment_method: null }, delinquent: false
    }
    this.customers.set(customer.id, customer)
    return customer
  }

  private createPrice(body: Obj): Obj {
    if (!body.currency) throw required("currency")
    const recurring = body.recurring ? { interval: body.recurring.interval, interval_count: Number(body.recurring.interval_count ?? 1) } : null
    const price = {
      id: id("price"), object: "price", active: true, created: this.sec(), currency: body.currency, livemode: false,
      lookup_key: body.lookup_key ?? null, metadata: body.metadata ?? {}, nickname: body.nickname ?? null,
      product: body.product ?? id("prod"), recurring, type: recurring ? "recurring" : "one_time",
      unit_amount: Number(body.unit_amount)
    }
    if (price.lookup_key) for (const p of this.prices.values()) if (p.lookup_key === price.lookup_key) p.lookup_key = null
    this.prices.set(price.id, price)
    return price
  }

  private listPrices(query: Obj): Obj {
    const keys: Array<string> = Array.isArray(query.lookup_keys) ? query.lookup_keys : query.lookup_keys ? [query.lookup_keys] : []
    const data = [...this.prices.values()].filter((p) => keys.length === 0 || keys.includes(p.lookup_key))
    return { object: "list", data, has_more: false, url: "/v1/prices" }
  }

  private priceFromLine(line: Obj): Obj {
    if (line.price) return this.get(this.prices, "price", line.price)
    const pd = line.price_data
    if (!pd) throw required("line_items[0][price]")
    return this.createPrice({ currency: pd.currency, unit_amount: pd.unit_amount, recurring: pd.recurring, metadata: pd.product_data?.metadata ?? {} })
  }

  private createSession(body: Obj): Obj {
    if (body.mode !== "subscription") throw new StripeError(400, "invalid_request_error", "This stand-in supports mode=subscription only.", "parameter_invalid_string", "mode")
    if (!body.success_url) throw required("success_url")
    const lines: Array<Obj> = body.line_items ?? []
    if (lines.length === 0) throw required("line_items")
    if (body.customer) this.get(this.customers, "customer", body.customer)
    const price = this.priceFromLine(lines[0]!)
    const sid = id("cs_test")
    const session = {
      id: sid, object: "checkout.session", mode: "subscription", status: "open", payment_status: "unpaid", livemode: false,
      created: this.sec(), expires_at: this.sec() + 86_400, customer: body.customer ?? null, customer_email: body.customer_email ?? null,
      client_reference_id: body.client_reference_id ?? null, metadata: body.metadata ?? {}, success_url: body.success_url,
      cancel_url: body.cancel_url ?? null, subscription: null, invoice: null, currency: price.currency, amount_total: price.unit_amount,
      url: `${this.options.pageBase}/checkout/${sid}`,
      // not part of Stripe's object; kept for completing it
      _price: price.id, _subscription_metadata: body.subscription_data?.metadata ?? {}
    }
    this.sessions.set(sid, session)
    return this.visible(session)
  }

  private createPortal(body: Obj): Obj {
    if (!body.customer) throw required("customer")
    this.get(this.customers, "customer", body.customer)
    const flow = body.flow_data ?? null
    if (flow?.type === "subscription_update_confirm") {
      const subId = flow.subscription_update_confirm?.subscription
      this.get(this.subscriptions, "subscription", subId)
      const items: Array<Obj> = flow.subscription_update_confirm?.items ?? []
      if (items.length === 0 || !items[0]!.price) throw required("flow_data[subscription_update_confirm][items]")
      this.get(this.prices, "price", items[0]!.price)
    }
    const pid = id("bps")
    const portal = {
      id: pid, object: "billing_portal.session", created: this.sec(), customer: body.customer, livemode: false,
      return_url: body.return_url ?? null, flow, url: `${this.options.pageBase}/portal/${pid}`
    }
    this.portals.set(pid, portal)
    return portal
  }

  private visible(o: Obj): Obj {
    return Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith("_")))
  }

  private newSubscription(customer: string, price: Obj, metadata: Obj): Obj {
    const start = this.sec()
    const end = Math.floor(addPeriod(new Date(start * 1000), price.recurring?.interval ?? "month").getTime() / 1000)
    const sub = {
      id: id("sub"), object: "subscription", customer, status: "active", created: start, start_date: start, livemode: false,
      cancel_at_period_end: false, cancel_at: null, canceled_at: null, ended_at: null, trial_end: null, metadata,
      cancellation_details: { comment: null, feedback: null, reason: null }, latest_invoice: null as string | null,
      items: { object: "list", data: [{ id: id("si"), object: "subscription_item", price, quantity: 1, current_period_start: start, current_period_end: end }] }
    }
    this.subscriptions.set(sub.id, sub)
    return sub
  }

  private invoiceFor(sub: Obj, reason: string, paid: boolean): Obj {
    const item = sub.items.data[0]
    const inv = {
      id: id("in"), object: "invoice", customer: sub.customer, status: paid ? "paid" : "open", billing_reason: reason,
      amount_due: item.price.unit_amount, amount_paid: paid ? item.price.unit_amount : 0, currency: item.price.currency,
      created: this.sec(), livemode: false, attempt_count: 1,
      parent: { type: "subscription_details", subscription_details: { subscription: sub.id, metadata: sub.metadata } },
      lines: { object: "list", data: [{ id: id("il"), period: { start: item.current_period_start, end: item.current_period_end }, pricing: { price_details: { price: item.price.id } } }] }
    }
    this.invoices.set(inv.id, inv)
    sub.latest_invoice = inv.id
    return inv
  }

  private createSubscription(body: Obj): Obj {
    if (!body.customer) throw required("customer")
    this.get(this.customers, "customer", body.customer)
    const items: Array<Obj> = body.items ?? []
    if (items.length === 0) throw required("items")
    const price = this.priceFromLine(items[0]!)
    const sub = this.newSubscription(body.customer, price, body.metadata ?? {})
    const fails = this.failingCustomers.has(body.customer)
    if (fails) sub.status = "incomplete"
    const inv = this.invoiceFor(sub, "subscription_create", !fails)
    this.emit("customer.subscription.created", sub)
    this.emit(fails ? "invoice.payment_failed" : "invoice.paid", inv)
    return sub
  }

  private updateSubscription(subId: string, body: Obj): Obj {
    const sub = this.get(this.subscriptions, "subscription", subId)
    if (sub.status === "canceled") throw new StripeError(400, "invalid_request_error", "A canceled subscription can only update its cancellation_details and metadata.")
    const previous: Obj = {}
    if (body.cancel_at_period_end !== undefined) {
      previous.cancel_at_period_end = sub.cancel_at_period_end
      sub.cancel_at_period_end = body.cancel_at_period_end === "true"
      sub.cancel_at = sub.cancel_at_period_end ? sub.items.data[0].current_period_end : null
      sub.canceled_at = sub.cancel_at_period_end ? this.sec() : null
    }
    if (body.cancellation_details) sub.cancellation_details = { ...sub.cancellation_details, ...body.cancellation_details }
    if (body.metadata) {
      previous.metadata = sub.metadata
      sub.metadata = { ...sub.metadata, ...body.metadata }
    }
    if (Array.isArray(body.items) && body.items[0]?.price) this.changePrice(sub, body.items[0].price, previous)
    this.emit("customer.subscription.updated", sub, previous)
    return sub
  }

  private changePrice(sub: Obj, priceId: string, previous: Obj) {
    const price = this.get(this.prices, "price", priceId)
    const item = sub.items.data[0]
    previous.items = { data: [{ ...item }] }
    const start = this.sec()
    item.price = price
    item.current_period_start = start
    item.current_period_end = Math.floor(addPeriod(new Date(start * 1000), price.recurring?.interval ?? "month").getTime() / 1000)
  }

  private cancelNow(subId: string): Obj {
    const sub = this.get(this.subscriptions, "subscription", subId)
    if (sub.status === "canceled") return sub
    sub.status = "canceled"
    sub.canceled_at = sub.canceled_at ?? this.sec()
    sub.ended_at = this.sec()
    this.emit("customer.subscription.deleted", sub)
    return sub
  }

  // ---- what customers and time do ---------------------------------------------------------------------------

  /** The customer pays on the hosted checkout page. */
  completeCheckout(sessionId: string): Obj {
    const session = this.get(this.sessions, "checkout.session", sessionId)
    if (session.status !== "open") throw new StripeError(400, "invalid_request_error", "This Checkout Session is no longer open.")
    let customer = session.customer
    if (!customer) customer = this.createCustomer({ email: session.customer_email }).id
    const sub = this.newSubscription(customer, this.get(this.prices, "price", session._price), session._subscription_metadata)
    const inv = this.invoiceFor(sub, "subscription_create", true)
    Object.assign(session, { status: "complete", payment_status: "paid", customer, subscription: sub.id, invoice: inv.id })
    this.emit("customer.subscription.created", sub)
    this.emit("invoice.paid", inv)
    this.emit("checkout.session.completed", this.visible(session))
    return sub
  }

  /** The customer leaves the checkout page, or it times out. */
  expireCheckout(sessionId: string): void {
    const session = this.get(this.sessions, "checkout.session", sessionId)
    if (session.status !== "open") return
    session.status = "expired"
    this.emit("checkout.session.expired", this.visible(session))
  }

  /** The customer confirms the plan change offered by a portal session's `subscription_update_confirm` flow. */
  confirmPortalUpdate(portalId: string): Obj {
    const portal = this.get(this.portals, "billing_portal.session", portalId)
    const flow = portal.flow?.subscription_update_confirm
    if (!flow) throw new StripeError(400, "invalid_request_error", "This portal session has no plan change to confirm.")
    return this.updateSubscription(flow.subscription, { items: [{ price: flow.items[0].price }] })
  }

  /** The customer cancels in the portal (at period end), or resumes. */
  portalCancel(subId: string, atPeriodEnd = true): Obj {
    return atPeriodEnd ? this.updateSubscription(subId, { cancel_at_period_end: "true" }) : this.cancelNow(subId)
  }

  /** Time reaches the subscription's period end: it renews (a new paid invoice), fails to, or ends. */
  reachPeriodEnd(subId: string): Obj {
    const sub = this.get(this.subscriptions, "subscription", subId)
    if (sub.status === "canceled") return sub
    if (sub.cancel_at_period_end) return this.cancelNow(subId)
    const item = sub.items.data[0]
    const previous = { items: { data: [{ ...item }] }, status: sub.status }
    item.current_period_start = item.current_period_end
    item.current_period_end = Math.floor(addPeriod(new Date(item.current_period_end * 1000), item.price.recurring?.interval as ProviderInterval).getTime() / 1000)
    const fails = this.failingCustomers.has(sub.customer)
    sub.status = fails ? "past_due" : "active"
    const inv = this.invoiceFor(sub, "subscription_cycle", !fails)
    this.emit(fails ? "invoice.payment_failed" : "invoice.paid", inv)
    this.emit("customer.subscription.updated", sub, previous)
    return sub
  }

  // ---- events -----------------------------------------------------------------------------------------------

  private emit(type: string, object: Obj, previous?: Obj) {
    this.persist()
    const created = this.sec()
    const event = {
      id: id("evt"), object: "event", api_version: STANDIN_API_VERSION, created, livemode: false, pending_webhooks: 1,
      request: { id: id("req"), idempotency_key: null }, type,
      data: { object: JSON.parse(JSON.stringify(object)), ...(previous ? { previous_attributes: previous } : {}) }
    }
    const payload = JSON.stringify(event, null, 2)
    const record = { id: event.id, type, payload, created }
    this.events.push(record)
    if (this.options.webhookUrl || this.options.sink) void this.deliver(record)
  }

  /** The `Stripe-Signature` header of a payload at a time (seconds). */
  sign(payload: string, timestampSec = this.sec()): string {
    return stripeSignature(payload, this.options.webhookSecret, timestampSec)
  }

  /** POSTs one event to the webhook URL; retried a few times on failure, as the provider does (sooner). */
  async deliver(event: StandInEvent, attempts = 5): Promise<number> {
    let status = 0
    for (let attempt = 0; attempt < attempts; attempt++) {
      try {
        if (this.options.sink) status = await this.options.sink(event.payload, this.sign(event.payload))
        else {
          const res = await fetch(this.options.webhookUrl!, {
            method: "POST",
            headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": this.sign(event.payload), "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" },
            body: event.payload
          })
          status = res.status
          await res.arrayBuffer()
        }
        if (status >= 200 && status < 300) return status
      } catch {
        status = 0
      }
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt))
    }
    return status
  }
}
