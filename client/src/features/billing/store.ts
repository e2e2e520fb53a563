/**
 * The billing page's state: the caller's plan and what they can do. Actions that lead to a provider's hosted page
 * (checkout, portal, switch to yearly, crypto invoice) navigate there; the others refresh the status.
 */
import { createStore } from "solid-js/store"
import { billingApi, type BillingStatus, type CancelReason, type Tier } from "./api"

export interface BillingState {
  readonly status: BillingStatus | null
  readonly currencies: ReadonlyArray<string>
  readonly busy: string | null
  readonly error: string | null
  readonly notice: string | null
}

export const createBilling = (go: (url: string) => void = (url) => window.location.assign(url)) => {
  const [state, setState] = createStore<BillingState>({ status: null, currencies: [], busy: null, error: null, notice: null })

  const run = async <T,>(name: string, work: () => Promise<T>, after?: (value: T) => void | Promise<void>) => {
    setState({ busy: name, error: null, notice: null })
    try {
      const value = await work()
      await after?.(value)
    } catch (e) {
      setState({ error: (e as Error).message })
    } finally {
      setState({ busy: null })
    }
  }
  const load = () => run("load", billingApi.status, (status) => void setState({ status }))
  const loadCurrencies = () => billingApi.currencies().then((c) => setState({ currencies: c.currencies }), () => undefined)

  return {
    state,
    load,
    loadCurrencies,
    checkout: (tier: Tier, interval: "monthly" | "yearly") => run(`checkout:${tier}:${interval}`, () => billingApi.checkout(tier, interval), (s) => go(s.url)),
    portal: () => run("portal", billingApi.portal, (p) => go(p.url)),
    switchYearly: () => run("switch", billingApi.switchYearly, (p) => go(p.url)),
    crypto: (tier: Tier, interval: "monthly" | "yearly", currency?: string) =>
      run(`crypto:${tier}`, () => billingApi.crypto(tier, interval, currency), (i) => go(i.invoice_url)),
    cancel: (reason?: CancelReason) =>
      run("cancel", () => billingApi.cancel(reason), async () => {
        setState({ notice: "Cancelled. You keep your plan until the end of the period." })
        setState({ status: await billingApi.status() })
      }),
    keep: () => run("keep", () => billingApi.cancelFeedback("stayed"), () => void setState({ notice: "Glad you're staying." })),
    downgrade: (tier: Tier) =>
      run("downgrade", () => billingApi.downgrade(tier), async () => {
        await billingApi.cancelFeedback("downgraded").catch(() => undefined)
        setState({ notice: `Your plan changes to ${tier} at the end of the period.` })
        setState({ status: await billingApi.status() })
      })
  }
}
