/** Sign in (session cookie); a failed magic link lands here with `?error=`. */
import { createSignal, Show, type Component } from "solid-js"
import { Card } from "../components/Card"
import { Link, navigate, query } from "../router"
import { useStore } from "../store"

const LINK_ERRORS: Record<string, string> = {
  expired: "That sign-in link has expired. Sign in with your password or ask for a new link.",
  used: "That sign-in link was already used.",
  invalid: "That sign-in link is not valid."
}

export const Login: Component = () => {
  const [state, actions] = useStore()
  const [error, setError] = createSignal<string | null>(null)
  const [busy, setBusy] = createSignal(false)
  const linkError = () => {
    const reason = query("error")
    return reason ? (LINK_ERRORS[reason] ?? "That sign-in link did not work.") : null
  }
  const submit = async (e: SubmitEvent) => {
    e.preventDefault()
    const form = new FormData(e.currentTarget as HTMLFormElement)
    setBusy(true)
    setError(null)
    try {
      await actions.login(String(form.get("email")), String(form.get("password")))
      const next = query("next")
      navigate(next && next.startsWith("/") && !next.startsWith("//") ? next : "/", true)
    } catch (err) {
      setError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Card title="Sign in" class="narrow">
      <Show when={state.session.user}>
        {(u) => <p class="notice">Signed in as {u().email}.</p>}
      </Show>
      <Show when={linkError() ?? state.session.authNote}>{(m) => <p class="notice notice-warn">{m()}</p>}</Show>
      <form class="form" onSubmit={submit}>
        <label>Email<input name="email" type="email" autocomplete="email" required /></label>
        <label>Password<input name="password" type="password" autocomplete="current-password" required /></label>
        <Show when={error()}>{(m) => <p class="form-error" role="alert">{m()}</p>}</Show>
        <button class="btn" type="submit" disabled={busy()}>{busy() ? "Signing in…" : "Sign in"}</button>
      </form>
      <p class="muted">No account yet? <Link href="/register">Create one</Link></p>
    </Card>
  )
}
