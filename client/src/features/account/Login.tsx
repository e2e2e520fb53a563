/**
 * Sign in (session cookie) with a password, or by a one-time link mailed to the address; a forgotten password is
 * reset by a mailed link. A failed magic link lands here with `?error=`.
 */
import { createSignal, Show, type Component } from "solid-js"
import { Card } from "../../components/Card"
import { Link, navigate, query } from "../../router"
import { useStore } from "../../store"

const LINK_ERRORS: Record<string, string> = {
  expired: "That sign-in link has expired. Sign in with your password or ask for a new link.",
  used: "That sign-in link was already used.",
  invalid: "That sign-in link is not valid."
}

export const Login: Component = () => {
  const [state, actions] = useStore()
  const [error, setError] = createSignal<string | null>(null)
  const [sent, setSent] = createSignal<string | null>(null)
  const [busy, setBusy] = createSignal(false)
  let form!: HTMLFormElement
  let emailInput!: HTMLInputElement
  const linkError = () => {
    const reason = query("error")
    return reason ? (LINK_ERRORS[reason] ?? "That sign-in link did not work.") : null
  }
  const submit = async (e: SubmitEvent) => {
    e.preventDefault()
    const data = new FormData(form)
    setBusy(true)
    setError(null)
    setSent(null)
    try {
      await actions.login(String(data.get("email")), String(data.get("password")))
      const next = query("next")
      navigate(next && next.startsWith("/") && !next.startsWith("//") ? next : "/", true)
    } catch (err) {
      setError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }
  /** The forgot-password and magic-link buttons need only the e-mail field. */
  const mail = async (kind: "reset" | "magic") => {
    setError(null)
    setSent(null)
    if (!emailInput.reportValidity()) {
      setError(emailInput.value === "" ? "Enter your e-mail address first." : "Enter a valid e-mail address first.")
      emailInput.focus()
      return
    }
    setBusy(true)
    try {
      setSent(await actions.mailLink(kind, emailInput.value))
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
      <form class="form" ref={form} onSubmit={submit}>
        <label>Email<input ref={emailInput} name="email" type="email" autocomplete="email" required /></label>
        <label>Password<input name="password" type="password" autocomplete="current-password" required /></label>
        <Show when={error()}>{(m) => <p class="form-error" role="alert">{m()}</p>}</Show>
        <Show when={sent()}>{(m) => <p class="notice" role="status">{m()}</p>}</Show>
        <button class="btn" type="submit" disabled={busy()}>{busy() ? "Please wait…" : "Sign in"}</button>
        <div class="form-links">
          <button type="button" class="link-button" disabled={busy()} onClick={() => void mail("reset")}>Forgot password?</button>
          <button type="button" class="link-button" disabled={busy()} onClick={() => void mail("magic")}>E-mail me a sign-in link</button>
        </div>
      </form>
      <p class="muted">No account yet? <Link href="/register">Create one</Link></p>
    </Card>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default Login
