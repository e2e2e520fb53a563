/**
 * The wallet page's identity history (issue 28 parts 1 and 6): every class change with its source, reason,
 * confidence and block, and the operators' corrections, marked as such — newest first, as the server sends them.
 */
import { For, Show, type Component } from "solid-js"
import type { WalletHistoryEntry, WalletPage } from "../../../../schema/http/wallets"
import { Card } from "../../components/Card"
import { CLASS } from "./Panels"

const SOURCE: Record<string, string> = { seed: "seed data", label_file: "label file", rule: "behaviour rule", operator: "operator" }

const change = (h: WalletHistoryEntry) => {
  const name = (v: string | null) => (v === null ? "" : h.field === "class" ? CLASS[v] ?? v : `“${v}”`)
  if (h.action === "unset") return `${h.field} ${h.value === null ? "" : `${name(h.value)} `}removed`
  return h.previous === null ? `${h.field}: ${name(h.value)}` : `${h.field}: ${name(h.previous)} → ${name(h.value)}`
}

export const HistoryPanel: Component<{ page: WalletPage }> = (props) => (
  <Card title="Identity history" class="span-2 wl-history">
    <Show when={props.page.history.length > 0} fallback={<p class="empty">No class or label change recorded yet.</p>}>
      <div class="table-wrap">
        <table class="table">
          <thead><tr><th>When</th><th>Change</th><th>Source</th><th>Why</th><th class="num">Confidence</th><th>Block</th></tr></thead>
          <tbody><For each={props.page.history}>{(h) => (
            <tr class={h.correction ? "wl-correction" : ""}>
              <td class="small" title={h.at}>{h.at.slice(0, 16).replace("T", " ")}</td>
              <td>{change(h)}</td>
              <td>{h.source === null ? "—" : SOURCE[h.source] ?? h.source}<Show when={h.correction}> <span class="pill wl-pill-correction">correction</span></Show></td>
              <td class="small wl-why">{h.reason ?? "—"}</td>
              <td class="num">{h.confidence === null ? "—" : `${Math.round(h.confidence * 100)} %`}</td>
              <td class="small">{h.block ?? "—"}</td>
            </tr>
          )}</For></tbody>
        </table>
      </div>
    </Show>
  </Card>
)
