/** The top bar: brand, navigation, connection state, and the account menu. */
import { createEffect, createSignal, For, on, Show, type Component } from "solid-js"
import { Link, location, navigate } from "../router"
import { useStore } from "../store"
import { NAV } from "../routes"
import { ConnectionBadge } from "./ConnectionBadge"

export const Header: Component = () => {
  const [state, actions] = useStore()
  const visible = () => NAV.filter((n) => !n.admin || state.session.user?.admin)
  const current = (href: string) => (href === "/" ? location().path === "/" : location().path.startsWith(href))
  // On phones the menu folds behind a button; it closes again when a page is chosen.
  const [open, setOpen] = createSignal(false)
  createEffect(on(() => location().path, () => setOpen(false), { defer: true }))
  return (
    <header class="topbar">
      <Link href="/" class="brand" title="Whale Intelligence">
        <span class="brand-mark" aria-hidden="true">◢</span>
        <span class="brand-name">Whale Intelligence</span>
      </Link>
      <button class="menu-toggle btn btn-small btn-ghost" aria-expanded={open()} aria-controls="console-nav" onClick={() => setOpen(!open())}>
        {open() ? "Close" : "Menu"}
      </button>
      <nav id="console-nav" class={`nav${open() ? " nav-open" : ""}`} aria-label="Console">
        <For each={visible()}>
          {(item) => (
            <Link href={item.href} class="nav-link" aria-current={current(item.href) ? "page" : undefined}>
              {item.label}
            </Link>
          )}
        </For>
        {/* Server-rendered pages of the site, reached from the console too (a full page load). */}
        <a href="/positioning" class="nav-link">Positioning</a>
        <a href="/pricing" class="nav-link">Pricing</a>
        <a href="/docs" class="nav-link">API</a>
      </nav>
      <div class="topbar-right">
        <ConnectionBadge />
        <Show
          when={state.session.user}
          fallback={
            <Link href="/login" class="btn btn-small">
              Sign in
            </Link>
          }
        >
          {(user) => (
            <div class="account">
              {/* The name may be shortened; the tier never is (it sits outside the shortened part). */}
              <Link href="/account" class="account-link" title={`${user().email}: your account, API keys and sessions`}>
                <span class="account-name">{user().display_name || user().email.split("@")[0]}</span>
                <span class="tier">{user().tier}</span>
              </Link>
              <button
                class="btn btn-small btn-ghost"
                onClick={async () => {
                  await actions.logout()
                  navigate("/")
                }}
              >
                Sign out
              </button>
            </div>
          )}
        </Show>
      </div>
    </header>
  )
}
