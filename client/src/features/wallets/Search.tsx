/** `/wallets`: the tracked wallets, found by label or address prefix (the alerts pages' search; custom wallets never). */
import { createSignal, For, onCleanup, onMount, Show, type Component } from "solid-js"
import type { WalletSearchData } from "../../../../schema/http/analytics"
import { Card } from "../../components/Card"
import { WalletLink } from "../../components/WalletLink"
import { shortAddress, signedUsd } from "../../lib/format"
import { navigate, query } from "../../router"
import { walletsApi } from "./api"
import "./wallets.css"

const FULL = /^0x[0-9a-fA-F]{40}$/

export const WalletSearchPage: Component = () => {
  const [q, setQ] = createSignal(query("q") ?? "")
  const [found, setFound] = createSignal<WalletSearchData["wallets"] | null>(null)
  const [error, setError] = createSignal<string | null>(null)
  let timer: ReturnType<typeof setTimeout> | undefined
  let asked = 0
  const search = async (text: string) => {
    const n = ++asked
    try {
      const res = await walletsApi.search(text.trim())
      if (n === asked) { setFound(res.wallets); setError(null) }
    } catch (e) {
      if (n === asked) setError((e as Error).message)
    }
  }
  const onInput = (text: string) => {
    setQ(text)
    clearTimeout(timer)
    timer = setTimeout(() => void search(text), 200)
  }
  onMount(() => void search(q()))
  onCleanup(() => clearTimeout(timer))
  return (
    <Card title="Wallets" class="wl-search">
      <form class="inline-form" onSubmit={(e) => { e.preventDefault(); if (FULL.test(q().trim())) navigate(`/wallets/${q().trim().toLowerCase()}`); else void search(q()) }}>
        <input aria-label="Search wallets by label or address" placeholder="Label or 0x address" value={q()} onInput={(e) => onInput(e.currentTarget.value)} maxLength={100} />
        <button type="submit">Search</button>
      </form>
      <p class="muted small">Tracked wallets by label or address prefix; a full address opens its page, tracked or not.</p>
      <Show when={error()}>{(m) => <p class="notice notice-warn" role="alert">{m()}</p>}</Show>
      <Show when={found()} fallback={<p class="empty">Loading…</p>}>
        {(list) => (
          <Show when={list().length > 0} fallback={<p class="empty">No tracked wallet matches “{q()}”.</p>}>
            <div class="table-wrap">
              <table class="table">
                <thead><tr><th>Wallet</th><th>Address</th><th>Cohort</th><th class="num">Net 7d</th><th class="num">Records 7d</th><th>Last active</th></tr></thead>
                <tbody><For each={list()}>{(w) => (
                  <tr class={w.active ? "" : "muted"}>
                    <td><WalletLink address={w.address} label={w.label} /></td>
                    <td class="mono small">{shortAddress(w.address)}</td>
                    <td>{w.cohort}</td>
                    <td class={`num ${w.net_flow_7d_usd >= 0 ? "pos" : "neg"}`}>{signedUsd(w.net_flow_7d_usd)}</td>
                    <td class="num">{w.trades_7d}</td>
                    <td>{w.last_active_day ?? "—"}</td>
                  </tr>
                )}</For></tbody>
              </table>
            </div>
          </Show>
        )}
      </Show>
    </Card>
  )
}

export default WalletSearchPage
