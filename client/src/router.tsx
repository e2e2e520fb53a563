/**
 * A small history router: the location as a signal, path patterns with `{param}` segments (the same syntax as the
 * server's routes, which serve the shell for each path of CONSOLE_PAGES), and links that navigate without reloading.
 */
import { createSignal, type JSX, type ParentComponent } from "solid-js"

const [location, setLocation] = createSignal({ path: window.location.pathname, search: window.location.search })
window.addEventListener("popstate", () => setLocation({ path: window.location.pathname, search: window.location.search }))

export { location }

export const navigate = (to: string, replace = false) => {
  const url = new URL(to, window.location.origin)
  if (replace) history.replaceState(null, "", url)
  else history.pushState(null, "", url)
  setLocation({ path: url.pathname, search: url.search })
  window.scrollTo(0, 0)
}

export const query = (name: string) => new URLSearchParams(location().search).get(name)

/** The params of `path` matched against `pattern` (`/tokens/{token}`), or null. */
export const match = (pattern: string, path: string): Record<string, string> | null => {
  const want = pattern.split("/").filter(Boolean)
  const got = path.split("/").filter(Boolean)
  if (want.length !== got.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    const m = /^\{(\w+)\}$/.exec(want[i]!)
    if (m) params[m[1]!] = decodeURIComponent(got[i]!)
    else if (want[i] !== got[i]) return null
  }
  return params
}

export const Link: ParentComponent<{ href: string; class?: string; title?: string; "aria-current"?: JSX.HTMLAttributes<HTMLAnchorElement>["aria-current"] }> = (props) => (
  <a
    href={props.href}
    class={props.class}
    title={props.title}
    aria-current={props["aria-current"]}
    onClick={(e) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
      e.preventDefault()
      navigate(props.href)
    }}
  >
    {props.children}
  </a>
)
