/**
 * /billing: the caller's plan, its period end and any pending cancellation or downgrade; buttons for card checkout
 * (both intervals), the customer portal, switching to yearly, cancelling with a reason, and paying by crypto.
 * Signed-in users only: an anonymous visitor is sent to the login page and comes back here.
 */
import { createEffect, createSignal, For, Show, type Component } from "solid-js"
import { Card } from "../../components/Card"
import { money } from "../../lib/format"
import { navigate } from "../../router"
import { useStore } from "../../store"
import type { CancelReason } from "./api"
import { createBilling } from "./store"

/** Whole prices without cents ("$1,592"), others to the cent. */
const dollars = (n: number) => (Number.isInteger(n) ? money(n).replace(/\.00$/, "") : money(n))

const REASON_LABELS: Record<string, string> = {
  too_expensive: "Too expensive", missing_features: "Missing features", switched_service: "Switched to another service", unused: "I don't use it enough",
  customer_service: "Customer service", too_complex: "Too complicated", low_quality: "Quality was lower than expected", other: "Other"
}
const RANK: Record<string, number> = { free: 1, pro: 2, alpha: 3, whale: 4 }
const day = (iso: string | null) => (iso ? new Date(iso).toISOString().slice(0, 10) : "—")

export const BillingPage: Component<{ params: Record<string, string> }> = () => {
  const [session] = useStore()
  const billing = createBilling()
  const s = () => billing.state.status
  const [reason, setReason] = createSignal<CancelReason | "">("")
  const [confirming, setConfirming] = createSignal(false)
  const [currency, setCurrency] = createSignal("")

  let loaded = false
  createEffect(() => {
    if (session.session.checked && !session.session.user) navigate("/login?next=/billing", true)
    if (session.session.user && !loaded) {
      loaded = true
      void billing.load()
      void billing.loadCurrencies()
    }
  })
  const sub = () => s()?.subscription ?? null
  const running = () => { const x = sub(); return x !== null && ["active", "trialing", "past_due"].includes(x.status) }
  const busy = (name: string) => billing.state.busy === name

  return (
    <Show when={session.session.user} fallback={<p class="empty">Checking your session…</p>}>
      <div class="grid billing">
        <Show when={s()?.test_payments}>
          <p class="notice span-2" role="note"><strong>Test payments</strong> — this server uses a local stand-in of the payment providers. Nothing is charged.</p>
        </Show>
        <Show when={billing.state.error}>{(e) => <p class="notice notice-warn span-2" role="alert">{e()}</p>}</Show>
        <Show when={billing.state.notice}>{(n) => <p class="notice span-2" role="status">{n()}</p>}</Show>

        <Card title="Your plan" class="span-2">
          <Show when={s()} fallback={<p class="empty">Loading…</p>}>
            {(st) => (
              <dl class="plan">
                <div><dt>Tier</dt><dd class="strong" data-testid="tier">{st().tier}</dd></div>
                <Show when={sub()} fallback={<div><dt>Subscription</dt><dd>none</dd></div>}>
                  {(x) => (
                    <>
                      <div><dt>Subscription</dt><dd>{x().tier}, {x().interval}, {x().provider === "card" ? "card" : "crypto"}{x().price_usd !== null ? ` · $${x().price_usd}` : ""}</dd></div>
                      <div><dt>Status</dt><dd>{x().status}{x().cancel_at_period_end ? " · cancelled, ends at period end" : ""}</dd></div>
                      <div><dt>{x().cancel_at_period_end || x().provider === "crypto" ? "Access until" : "Renews"}</dt><dd data-testid="period-end">{day(x().current_period_end)}</dd></div>
                      <Show when={x().pending_change}>{(p) => <div><dt>Pending change</dt><dd>{p().tier} ({p().interval}) from {day(p().effective_at)}</dd></div>}</Show>
                    </>
                  )}
                </Show>
              </dl>
            )}
          </Show>
          <div class="actions">
            <Show when={s()?.has_card_customer}>
              <button class="btn btn-ghost" disabled={busy("portal")} onClick={() => void billing.portal()}>Payment methods & invoices</button>
            </Show>
            <Show when={running() && sub()?.provider === "card" && sub()?.interval === "monthly" && !sub()?.cancel_at_period_end}>
              <button class="btn btn-ghost" disabled={busy("switch")} onClick={() => void billing.switchYearly()}>Switch to yearly (founding price)</button>
            </Show>
          </div>
        </Card>

        <Card title={running() && !sub()?.cancel_at_period_end ? "Change plan" : "Subscribe"} class="span-2" aside={<a href="/pricing">Compare plans</a>}>
          <div class="plans">
            <For each={s()?.plans ?? []}>
              {(p) => (
                <div class="plan-card">
                  <h3>{p.display_name}</h3>
                  <p><strong>{dollars(p.monthly_usd)}</strong> / month · <strong>{dollars(p.yearly_usd)}</strong> / year</p>
                  <Show
                    when={running() && !sub()?.cancel_at_period_end}
                    fallback={
                      <>
                        <button class="btn btn-small" disabled={!s()?.card_available || busy(`checkout:${p.tier}:monthly`)} onClick={() => void billing.checkout(p.tier, "monthly")}>Card, monthly</button>{" "}
                        <button class="btn btn-small" disabled={!s()?.card_available || busy(`checkout:${p.tier}:yearly`)} onClick={() => void billing.checkout(p.tier, "yearly")}>Card, yearly</button>{" "}
                        <button class="btn btn-small btn-ghost" disabled={!s()?.crypto_available || busy(`crypto:${p.tier}`)} onClick={() => void billing.crypto(p.tier, "monthly", currency() || undefined)}>Crypto</button>
                      </>
                    }
                  >
                    <Show when={p.tier === sub()!.tier}><span class="pill pill-live">Current plan</span></Show>
                    <Show when={RANK[p.tier]! < RANK[sub()!.tier]!}>
                      <button class="btn btn-small btn-ghost" disabled={busy("downgrade")} onClick={() => void billing.downgrade(p.tier)}>Downgrade at period end</button>
                    </Show>
                    <Show when={RANK[p.tier]! > RANK[sub()!.tier]! && sub()!.provider === "card"}>
                      <button class="btn btn-small btn-ghost" disabled={busy("portal")} onClick={() => void billing.portal()}>Upgrade in the portal</button>
                    </Show>
                  </Show>
                </div>
              )}
            </For>
          </div>
          <Show when={billing.state.currencies.length > 0}>
            <label class="muted">Crypto currency{" "}
              <select value={currency()} onChange={(e) => setCurrency(e.currentTarget.value)}>
                <option value="">choose on the invoice</option>
                <For each={billing.state.currencies}>{(c) => <option value={c}>{c.toUpperCase()}</option>}</For>
              </select>
            </label>
          </Show>
        </Card>

        <Show when={running() && !sub()?.cancel_at_period_end}>
          <Card title="Cancel" class="span-2">
            <Show when={confirming()} fallback={<button class="btn btn-ghost" onClick={() => setConfirming(true)}>Cancel subscription…</button>}>
              <p>You keep your plan until {day(sub()?.current_period_end ?? null)}. Tell us why (optional):</p>
              <select value={reason()} onChange={(e) => setReason(e.currentTarget.value as CancelReason | "")}>
                <option value="">No reason</option>
                <For each={s()?.cancel_reasons ?? []}>{(r) => <option value={r}>{REASON_LABELS[r] ?? r}</option>}</For>
              </select>{" "}
              <button class="btn" disabled={busy("cancel")} onClick={() => void billing.cancel(reason() || undefined).then(() => setConfirming(false))}>Cancel at period end</button>{" "}
              <button class="btn btn-ghost" onClick={() => { setConfirming(false); void billing.keep() }}>Keep my plan</button>
            </Show>
          </Card>
        </Show>
      </div>
    </Show>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default BillingPage
