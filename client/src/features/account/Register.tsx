/** Create an account; the verification link is mailed. Signing in right after works with the same password. */
import { createSignal, Show, type Component } from "solid-js"
import { PASSWORD_MIN_LENGTH } from "../../../../schema/http/auth"
import { Card } from "../../components/Card"
import { Link, navigate } from "../../router"
import { useStore } from "../../store"

export const Register: Component = () => {
  const [, actions] = useStore()
  const [error, setError] = createSignal<string | null>(null)
  const [done, setDone] = createSignal<string | null>(null)
  const [busy, setBusy] = createSignal(false)
  const submit = async (e: SubmitEvent) => {
    e.preventDefault()
    const form = new FormData(e.currentTarget as HTMLFormElement)
    const email = String(form.get("email"))
    const password = String(form.get("password"))
    setError(null)
    const emailField = (e.currentTarget as HTMLFormElement).elements.namedItem("email") as HTMLInputElement
    if (!emailField.validity.valid) {
      setError(email === "" ? "Enter your e-mail address." : "Enter a valid e-mail address.")
      return
    }
    if (password.length < PASSWORD_MIN_LENGTH) {
      setError(`The password is too short: use at least ${PASSWORD_MIN_LENGTH} characters (${password.length} given).`)
      return
    }
    setBusy(true)
    try {
      const message = await actions.register(email, password, String(form.get("display_name") ?? "") || undefined)
      try {
        await actions.login(email, password)
        navigate("/", true)
      } catch {
        setDone(message)
      }
    } catch (err) {
      setError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Card title="Create your account" class="narrow">
      <Show when={done()} fallback={
        <form class="form" onSubmit={submit} noValidate>
          <label>Email<input name="email" type="email" autocomplete="email" required /></label>
          <label>Display name <small class="muted">(optional)</small><input name="display_name" maxLength={80} autocomplete="nickname" /></label>
          <label>Password <small class="muted">(at least {PASSWORD_MIN_LENGTH} characters)</small>
            <input name="password" type="password" minLength={PASSWORD_MIN_LENGTH} autocomplete="new-password" required />
          </label>
          <Show when={error()}>{(m) => <p class="form-error" role="alert">{m()}</p>}</Show>
          <button class="btn" type="submit" disabled={busy()}>{busy() ? "Creating…" : "Create account"}</button>
        </form>
      }>
        {(m) => <p class="notice">{m()} <Link href="/login">Sign in</Link></p>}
      </Show>
      <p class="muted">Already registered? <Link href="/login">Sign in</Link></p>
    </Card>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default Register
