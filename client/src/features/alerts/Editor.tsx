/** The alert form: type, its params (with the type's defaults), channels; also edits an existing alert. */
import { createSignal, For, Show, type Component } from "solid-js"
import { ALERT_TYPES, CHANNELS, type AlertResponse } from "../../../../schema/http/alerts"
import { query } from "../../router"
import type { AlertsStore } from "./store"

export const TYPE_LABELS: Record<string, string> = {
  whale_trade: "Whale trade", wallet_activity: "Wallet activity", exchange_flow: "Exchange flow", convergence: "Convergence",
  index_cross: "Index crosses a level", playbook_live: "Playbook event goes live", pick_flagged: "New pick flagged"
}

type Field = { key: string; label: string; kind: "text" | "number" | "select"; options?: ReadonlyArray<string>; placeholder?: string; def?: string }
const FIELDS: Record<string, ReadonlyArray<Field>> = {
  whale_trade: [
    { key: "token", label: "Token (symbol or address; empty: any)", kind: "text", placeholder: "ETH" },
    { key: "side", label: "Side", kind: "select", options: ["any", "buy", "sell"], def: "any" },
    { key: "min_usd", label: "Minimum USD", kind: "number", def: "100000" }
  ],
  wallet_activity: [
    { key: "wallet", label: "Wallet address", kind: "text", placeholder: "0x…" },
    { key: "min_usd", label: "Minimum USD", kind: "number", def: "0" }
  ],
  exchange_flow: [
    { key: "direction", label: "Direction", kind: "select", options: ["any", "deposit", "withdraw"], def: "any" },
    { key: "token", label: "Token (empty: any)", kind: "text", placeholder: "USDC" },
    { key: "min_usd", label: "Minimum USD", kind: "number", def: "1000000" }
  ],
  convergence: [
    { key: "token", label: "Token (empty: any)", kind: "text", placeholder: "PEPE" },
    { key: "min_whales", label: "Distinct whales", kind: "number", def: "3" },
    { key: "window_minutes", label: "Window (minutes)", kind: "number", def: "60" },
    { key: "min_usd", label: "Minimum USD per buy", kind: "number", def: "10000" }
  ],
  index_cross: [
    { key: "level", label: "Level (0-100)", kind: "number", def: "50" },
    { key: "direction", label: "Direction", kind: "select", options: ["any", "up", "down"], def: "any" }
  ],
  playbook_live: [
    { key: "category", label: "Category (empty: any)", kind: "text", placeholder: "macro" },
    { key: "min_severity", label: "Minimum severity (1-5)", kind: "number", def: "1" }
  ],
  pick_flagged: [
    { key: "token", label: "Token (empty: any)", kind: "text" },
    { key: "min_whales", label: "Minimum whales", kind: "number", def: "1" },
    { key: "min_conviction", label: "Minimum conviction", kind: "number", def: "0" }
  ]
}

const paramsOf = (type: string, form: FormData) => {
  const out: Record<string, unknown> = {}
  for (const f of FIELDS[type] ?? []) {
    const raw = String(form.get(f.key) ?? "").trim()
    if (raw === "") {
      if (f.kind === "text") out[f.key] = null
      continue
    }
    out[f.key] = f.kind === "number" ? Number(raw) : raw
  }
  if (type === "wallet_activity" && out.wallet === null) delete out.wallet
  return out
}

export const Editor: Component<{ store: AlertsStore; editing: AlertResponse | null; onDone: () => void }> = (props) => {
  // "Alert on this wallet" on a wallet page opens /alerts?type=wallet_activity&wallet=0x…: a new alert starts so.
  const asked = props.editing === null ? query("type") : null
  const [type, setType] = createSignal<string>(props.editing?.type ?? (asked !== null && (ALERT_TYPES as ReadonlyArray<string>).includes(asked) ? asked : "whale_trade"))
  const [busy, setBusy] = createSignal(false)
  const allowedTypes = () => props.store.state.list?.limits.types ?? []
  const allowedChannels = () => props.store.state.list?.limits.channels ?? []
  const value = (f: Field) => {
    if (props.editing === null && f.key === "wallet" && query("wallet") !== null) return query("wallet")!
    const v = props.editing?.params[f.key]
    return v === null || v === undefined ? (f.def ?? "") : String(v)
  }
  const submit = async (e: SubmitEvent) => {
    e.preventDefault()
    const form = new FormData(e.currentTarget as HTMLFormElement)
    setBusy(true)
    const ok = await props.store.save(props.editing?.id ?? null, {
      type: type(), params: paramsOf(type(), form), channels: CHANNELS.filter((c) => form.get(`ch_${c}`) === "on"),
      name: String(form.get("name") ?? "").trim() || null
    })
    setBusy(false)
    if (ok) props.onDone()
  }
  return (
    <form class="form alert-editor" onSubmit={submit}>
      <label>Type
        <select class="select" value={type()} disabled={props.editing !== null} onChange={(e) => setType(e.currentTarget.value)}>
          <For each={ALERT_TYPES}>{(t) => <option value={t} disabled={!allowedTypes().includes(t)}>{TYPE_LABELS[t]}{allowedTypes().includes(t) ? "" : " (higher tier)"}</option>}</For>
        </select>
      </label>
      <label>Name (optional)<input name="name" value={props.editing?.name ?? ""} maxLength={80} /></label>
      <For each={FIELDS[type()] ?? []}>
        {(f) => (
          <label>{f.label}
            <Show when={f.kind === "select"} fallback={<input name={f.key} type={f.kind === "number" ? "number" : "text"} step="any" value={value(f)} placeholder={f.placeholder ?? ""} />}>
              <select class="select" name={f.key} value={value(f)}><For each={f.options}>{(o) => <option value={o}>{o}</option>}</For></select>
            </Show>
          </label>
        )}
      </For>
      <fieldset class="channels-pick">
        <legend>Channels</legend>
        <For each={CHANNELS}>
          {(c) => (
            <label class="check">
              <input type="checkbox" name={`ch_${c}`} disabled={!allowedChannels().includes(c)}
                checked={props.editing ? props.editing.channels.includes(c) : c === "console"} /> {c}
            </label>
          )}
        </For>
      </fieldset>
      <div class="row">
        <button class="btn" type="submit" disabled={busy()}>{props.editing ? "Save alert" : "Create alert"}</button>
        <Show when={props.editing}><button class="btn btn-quiet" type="button" onClick={() => props.onDone()}>Cancel</button></Show>
      </div>
    </form>
  )
}
