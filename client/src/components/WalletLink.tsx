/**
 * A wallet's name wherever the console shows one: a link to its page (`/wallets/{address}`) with the address on
 * hover. A masked or truncated address (anonymous feed, the picks' public tables) cannot be linked and stays text.
 */
import { Show, type Component } from "solid-js"
import { shortAddress } from "../lib/format"
import { Link } from "../router"

const FULL = /^0x[0-9a-fA-F]{40}$/

export const walletPath = (address: string) => `/wallets/${address.toLowerCase()}`

export const WalletLink: Component<{ address: string; label?: string | null | undefined; class?: string }> = (props) => {
  const text = () => props.label ?? shortAddress(props.address)
  return (
    <Show when={FULL.test(props.address)} fallback={<span class={props.class} title={props.address}>{text()}</span>}>
      <Link href={walletPath(props.address)} class={`wallet-link ${props.class ?? ""}`.trim()} title={props.address}>{text()}</Link>
    </Show>
  )
}
