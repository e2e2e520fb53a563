/**
 * A local stand-in of the crypto processor (NOWPayments-style HTTP API) on 127.0.0.1: `GET /v1/status`,
 * `GET /v1/currencies`, `POST /v1/invoice`, `GET /v1/payment/{id}`, with `x-api-key` auth. What the payer and the
 * chain do are methods here (`pay`, `payPartially`, `expire`), each sending the IPNs the processor would send,
 * signed (`x-nowpayments-sig`, HMAC-SHA512 of the key-sorted JSON body), to the invoice's `ipn_callback_url`.
 * The IPN body follows the provider's documented example (no captured IPNs exist to replay).
 */
import { randomInt } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { loadStandInState, saveStandInState } from "../StandInState"
import { ipnSignature } from "./Signature"

type Obj = Record<string, any>

export interface CryptoStandInOptions {
  readonly apiKey: string
  readonly ipnSecret: string
  /** Base of the hosted invoice pages: `${pageBase}/crypto/<invoice id>`. */
  readonly pageBase: string
  readonly now?: () => number
  /** Deliver IPNs in process instead of over HTTP (when the app's own port is not known). */
  sink?: (body: string, signature: string) => Promise<number>
  /** Keep the invoices in this file across restarts (embedded default). */
  readonly stateFile?: string
}

export const STANDIN_CURRENCIES = ["btc", "eth", "usdttrc20", "usdterc20", "usdc", "ltc", "sol"] as const
/** USD per unit, for the amounts the stand-in asks payers for. */
const RATES: Record<string, number> = { btc: 60_000, eth: 3_000, usdttrc20: 1, usdterc20: 1, usdc: 1, ltc: 80, sol: 150 }

export class CryptoStandIn {
  readonly invoices = new Map<string, Obj>()
  /** Every IPN sent: body (as sent), signature, HTTP status of the delivery. */
  readonly ipns: Array<{ body: string; signature: string; status: number }> = []
  private server: Server | undefined
  url = ""

  constructor(readonly options: CryptoStandInOptions) {}

  private iso() {
    return new Date(this.options.now ? this.options.now() : Date.now()).toISOString()
  }

  async start(): Promise<string> {
    loadStandInState(this.options.stateFile, { invoices: this.invoices })
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

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Array<Buffer> = []
    for await (const c of req) chunks.push(c as Buffer)
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    const path = new URL(req.url ?? "/", "http://x").pathname
    if (path === "/v1/status") return send(200, { message: "OK" })
    if (req.headers["x-api-key"] !== this.options.apiKey) return send(403, { status: false, statusCode: 403, code: "INVALID_API_KEY", message: "Invalid api key" })
    if (req.method === "GET" && path === "/v1/currencies") return send(200, { currencies: [...STANDIN_CURRENCIES] })
    if (req.method === "POST" && path === "/v1/invoice") {
      let body: Obj
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        return send(400, { status: false, statusCode: 400, code: "INVALID_REQUEST_PARAMS", message: "body is not JSON" })
      }
      if (typeof body.price_amount !== "number" || body.price_amount <= 0) return send(400, { status: false, statusCode: 400, code: "INVALID_REQUEST_PARAMS", message: "\"price_amount\" must be a positive number" })
      if (body.pay_currency && !(STANDIN_CURRENCIES as ReadonlyArray<string>).includes(body.pay_currency)) {
        return send(400, { status: false, statusCode: 400, code: "INVALID_REQUEST_PARAMS", message: "pay_currency is not supported" })
      }
      const id = String(randomInt(1_000_000_000, 9_999_999_999))
      const invoice = {
        id, token_id: String(randomInt(1e8, 9e8)), order_id: body.order_id ?? null, order_description: body.order_description ?? null,
        price_amount: String(body.price_amount), price_currency: body.price_currency ?? "usd", pay_currency: body.pay_currency ?? null,
        ipn_callback_url: body.ipn_callback_url ?? null, invoice_url: `${this.options.pageBase}/crypto/${id}`,
        success_url: body.success_url ?? null, cancel_url: body.cancel_url ?? null, created_at: this.iso(), updated_at: this.iso()
      }
      this.invoices.set(id, invoice)
      saveStandInState(this.options.stateFile, { invoices: this.invoices })
      return send(200, invoice)
    }
    return send(404, { status: false, statusCode: 404, code: "NOT_FOUND", message: "Not found" })
  }

  /** The IPN body of a payment of an invoice at a status (the provider's documented fields). */
  ipnBody(invoiceId: string, paymentId: number, status: string, paidFraction = 1, overrides: Obj = {}): Obj {
    const inv = this.invoices.get(invoiceId)
    if (!inv) throw new Error(`no invoice ${invoiceId}`)
    const currency = inv.pay_currency ?? "eth"
    const payAmount = Number((Number(inv.price_amount) / (RATES[currency] ?? 1)).toFixed(8))
    return {
      payment_id: paymentId, invoice_id: Number(invoiceId), payment_status: status, pay_address: "0x9b0bD3D1e3c3C7A5D2bF3b3f0f2A1D6b8E4c2A71",
      price_amount: Number(inv.price_amount), price_currency: inv.price_currency, pay_amount: payAmount,
      actually_paid: status === "waiting" ? 0 : Number((payAmount * paidFraction).toFixed(8)), pay_currency: currency,
      order_id: inv.order_id, order_description: inv.order_description, purchase_id: String(paymentId + 1),
      created_at: inv.created_at, updated_at: this.iso(), outcome_amount: Number((payAmount * paidFraction * 0.995).toFixed(8)), outcome_currency: currency,
      ...overrides
    }
  }

  /** Sends one IPN (signed unless a signature is given); returns the HTTP status. */
  async send(body: Obj, signature = ipnSignature(body, this.options.ipnSecret)): Promise<number> {
    const text = JSON.stringify(body)
    const inv = this.invoices.get(String(body.invoice_id))
    let status = 0
    if (this.options.sink) status = await this.options.sink(text, signature)
    else if (inv?.ipn_callback_url) {
      const res = await fetch(inv.ipn_callback_url, { method: "POST", headers: { "content-type": "application/json", "x-nowpayments-sig": signature }, body: text })
      status = res.status
      await res.arrayBuffer()
    }
    this.ipns.push({ body: text, signature, status })
    return status
  }

  /** The payer pays in full: waiting → confirming → finished. Returns the payment id. */
  async pay(invoiceId: string): Promise<number> {
    const paymentId = randomInt(1_000_000_000, 9_999_999_999)
    for (const s of ["waiting", "confirming", "finished"]) await this.send(this.ipnBody(invoiceId, paymentId, s))
    return paymentId
  }

  async payPartially(invoiceId: string): Promise<number> {
    const paymentId = randomInt(1_000_000_000, 9_999_999_999)
    await this.send(this.ipnBody(invoiceId, paymentId, "partially_paid", 0.5))
    return paymentId
  }

  async expire(invoiceId: string): Promise<number> {
    const paymentId = randomInt(1_000_000_000, 9_999_999_999)
    await this.send(this.ipnBody(invoiceId, paymentId, "expired", 0))
    return paymentId
  }
}
