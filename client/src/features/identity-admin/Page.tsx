/**
 * Wallet identity for administrators (issue 28): set or remove a class or a label with a reason (the same service as
 * `npm run wallets -- identity`), the corrections log, and whale discovery's queue with approve / reject (in review
 * mode candidates wait here). The endpoints answer 401/403 to everyone else; the page says so.
 */
import { createResource, createSignal, For, Show, type Component } from "solid-js"
import { IdentityEndpoints as E, type Candidate } from "../../../../schema/http/identity"
import { WalletClass } from "../../../../schema/identity"
import { call, HttpError } from "../../api/http"
import { Card } from "../../components/Card"
import { ago, shortAddress, usd } from "../../lib/format"
import { Link } from "../../router"
import { useStore } from "../../store"

const failure = (e: unknown) => (e instanceof HttpError ? e.message : "Something went wrong")

const CorrectionForm: Component<{ done: () => void }> = (props) => {
  const [address, setAddress] = createSignal("")
  const [action, setAction] = createSignal<"set" | "unset">("set")
  const [field, setField] = createSignal<"class" | "label">("class")
  const [value, setValue] = createSignal("")
  const [exchange, setExchange] = createSignal("")
  const [reason, setReason] = createSignal("")
  const [error, setError] = createSignal<string | null>(null)
  const [result, setResult] = createSignal<string | null>(null)
  const submit = async (e: Event) => {
    e.preventDefault()
    setError(null)
    try {
      const r = await call(E.correct, { body: {
        address: address(), action: action(), field: field(), value: value().trim() === "" ? null : value(),
        exchange: exchange().trim() === "" ? null : exchange(), reason: reason()
      } })
      setResult(`${shortAddress(r.identity.address)} is now ${r.identity.class}${r.identity.label ? ` (“${r.identity.label}”)` : ""}`)
      setReason("")
      props.done()
    } catch (err) {
      setError(failure(err))
    }
  }
  return (
    <form class="form" onSubmit={submit}>
      <label>Address<input value={address()} onInput={(e) => setAddress(e.currentTarget.value)} placeholder="0x…" required /></label>
      <div class="inline-form">
        <select aria-label="Action" value={action()} onChange={(e) => setAction(e.currentTarget.value as "set" | "unset")}>
          <option value="set">set</option><option value="unset">remove</option>
        </select>
        <select aria-label="Field" value={field()} onChange={(e) => setField(e.currentTarget.value as "class" | "label")}>
          <option value="class">class</option><option value="label">label</option>
        </select>
        <Show when={field() === "class"} fallback={<input aria-label="Label" value={value()} onInput={(e) => setValue(e.currentTarget.value)} placeholder={action() === "set" ? "label" : "(none)"} disabled={action() === "unset"} />}>
          <select aria-label="Class" value={value()} onChange={(e) => setValue(e.currentTarget.value)}>
            <option value="">{action() === "set" ? "choose a class" : "the operator's own class"}</option>
            <For each={WalletClass.options}>{(c) => <option value={c}>{c}</option>}</For>
          </select>
        </Show>
        <Show when={field() === "class" && action() === "set" && value() === "exchange"}>
          <input aria-label="Exchange" value={exchange()} onInput={(e) => setExchange(e.currentTarget.value)} placeholder="exchange name" />
        </Show>
      </div>
      <label>Reason<input value={reason()} onInput={(e) => setReason(e.currentTarget.value)} placeholder="why (kept in the log)" required /></label>
      <Show when={error()}>{(m) => <p class="form-error" role="alert">{m()}</p>}</Show>
      <Show when={result()}>{(m) => <p class="notice" role="status">{m()}</p>}</Show>
      <div><button class="btn" type="submit">Record correction</button></div>
    </form>
  )
}

const CandidateRow: Component<{ c: Candidate; done: () => void; now: number }> = (props) => {
  const [reason, setReason] = createSignal("")
  const [error, setError] = createSignal<string | null>(null)
  const act = async (kind: "approve" | "reject") => {
    setError(null)
    try {
      if (kind === "approve") await call(E.approve, { params: { address: props.c.address } })
      else await call(E.reject, { params: { address: props.c.address }, body: { reason: reason() } })
      props.done()
    } catch (err) {
      setError(failure(err))
    }
  }
  const open = () => props.c.status === "pending" || props.c.status === "below" || props.c.status === "left"
  return (
    <tr>
      <td title={props.c.address}>{shortAddress(props.c.address)}</td>
      <td>{props.c.status}{props.c.cohort ? ` · ${props.c.cohort}` : ""}</td>
      <td class="num">{usd(props.c.holdings_usd)}</td>
      <td>{props.c.reason}<Show when={props.c.note}>{(n) => <div class="muted">{n()}</div>}</Show></td>
      <td class="muted">{ago(props.c.last_active_at, props.now)}</td>
      <td>
        <Show when={open()}>
          <div class="inline-form">
            <button class="btn btn-small" type="button" onClick={() => void act("approve")}>Approve</button>
            <input aria-label="Reason to reject" value={reason()} onInput={(e) => setReason(e.currentTarget.value)} placeholder="reason to reject" />
            <button class="btn btn-small btn-ghost" type="button" disabled={reason().trim() === ""} onClick={() => void act("reject")}>Reject</button>
          </div>
        </Show>
        <Show when={error()}>{(m) => <p class="form-error" role="alert">{m()}</p>}</Show>
      </td>
    </tr>
  )
}

const Admin: Component = () => {
  const [state] = useStore()
  const [log, { refetch: reloadLog }] = createResource(() => call(E.corrections, { query: { limit: 100 } }))
  const [queue, { refetch: reloadQueue }] = createResource(() => call(E.candidates, { query: { limit: 200 } }))
  return (
    <div class="ops">
      <div class="ops-head"><h1>Wallet identity</h1></div>
      <Card title="Correct an address">
        <CorrectionForm done={() => void reloadLog()} />
      </Card>
      <Card title="Corrections log" aside={<span class="muted">newest first; corrections win over rules and labels</span>}>
        <Show when={log()} fallback={<p class="empty">{log.error ? failure(log.error) : "Loading…"}</p>}>
          {(l) => (
            <div class="table-wrap"><table class="table">
              <thead><tr><th>When</th><th>Address</th><th>Change</th><th>Reason</th><th>By</th></tr></thead>
              <tbody>
                <For each={l().corrections} fallback={<tr><td colSpan={5} class="empty">No corrections yet.</td></tr>}>
                  {(c) => <tr>
                    <td class="muted">{ago(c.created_at, state.now)}</td>
                    <td title={c.address}>{shortAddress(c.address)}</td>
                    <td>{c.action === "set" ? "set" : "removed"} {c.field}{c.value ? ` ${c.value}` : ""}{c.exchange ? ` (${c.exchange})` : ""}</td>
                    <td>{c.reason}</td>
                    <td class="muted">{c.operator ?? "—"}</td>
                  </tr>}
                </For>
              </tbody>
            </table></div>
          )}
        </Show>
      </Card>
      <Card title="Whale candidates" aside={<Show when={queue()}>{(q) => <span class="muted">discovery {q().mode} · moves ≥ {usd(q().min_usd)} · joins at ≥ {usd(q().min_holdings_usd)} · up to {q().max_tracked} tracked</span>}</Show>}>
        <Show when={queue()} fallback={<p class="empty">{queue.error ? failure(queue.error) : "Loading…"}</p>}>
          {(q) => (
            <div class="table-wrap"><table class="table">
              <thead><tr><th>Address</th><th>Status</th><th class="num">Holds</th><th>Why</th><th>Active</th><th /></tr></thead>
              <tbody>
                <For each={q().candidates} fallback={<tr><td colSpan={6} class="empty">No candidates yet.</td></tr>}>
                  {(c) => <CandidateRow c={c} now={state.now} done={() => void reloadQueue()} />}
                </For>
              </tbody>
            </table></div>
          )}
        </Show>
      </Card>
    </div>
  )
}

const Page: Component = () => {
  const [state] = useStore()
  return (
    <Show when={state.session.checked} fallback={<p class="empty">Loading…</p>}>
      <Show when={state.session.user?.admin === true} fallback={
        <Card title="Wallet identity" class="narrow">
          <p class="notice notice-warn" role="alert">Administrators only.</p>
          <Show when={!state.session.user}><p><Link href="/login?next=/admin/identity">Sign in</Link> with an administrator account.</p></Show>
        </Card>
      }>
        <Admin />
      </Show>
    </Show>
  )
}

export default Page
