/**
 * The signed-in user. Sessions live in cookies (HttpOnly): the console asks `/auth/me`, renews the short session
 * token before it expires, and reconnects the WebSocket whenever the identity changes (it is fixed at the upgrade).
 */
import { onCleanup } from "solid-js"
import type { Actions, Deps, SetState, State } from "../../store/types"

const REFRESH_EVERY_MS = 10 * 60_000

export const createSession = (deps: Deps, actions: Partial<Actions>, state: State, setState: SetState) => {
  let timer: ReturnType<typeof setInterval> | undefined
  onCleanup(() => clearInterval(timer))

  const keepFresh = () => {
    clearInterval(timer)
    if (!state.session.user) return
    timer = setInterval(() => {
      deps.http.auth.refresh().catch(() => {
        setState("session", { user: null, authNote: "Your session ended; sign in again." })
        deps.ws.reconnect()
      })
    }, REFRESH_EVERY_MS)
  }

  // Whether this browser signed in before: only then is an expired session worth renewing (an anonymous visitor
  // would get a 401 from /auth/refresh). Holds no credential.
  const SIGNED_IN = "whale.signedIn"
  const remember = (on: boolean) => (on ? localStorage.setItem(SIGNED_IN, "1") : localStorage.removeItem(SIGNED_IN))

  const loadMe = async () => {
    try {
      // `/auth/tier` is always 200: an anonymous visit makes no failing request.
      const { tier } = await deps.http.auth.tier()
      if (tier !== "anon") setState("session", { user: await deps.http.auth.me(), checked: true })
      else if (localStorage.getItem(SIGNED_IN)) {
        const renewed = await deps.http.auth.refresh().catch(() => null)
        remember(renewed !== null)
        setState("session", { user: renewed?.user ?? null, checked: true })
        if (renewed) deps.ws.reconnect()
      } else setState("session", { user: null, checked: true })
    } catch {
      setState("session", { user: null, checked: true })
    }
    keepFresh()
  }

  Object.assign(actions, {
    async login(email: string, password: string) {
      const session = await deps.http.auth.login(email, password)
      setState("session", { user: session.user, checked: true, authNote: null })
      remember(true)
      keepFresh()
      deps.ws.reconnect()
    },
    async register(email: string, password: string, displayName?: string) {
      const answer = await deps.http.auth.register(email, password, displayName)
      return answer.message
    },
    async mailLink(kind: "reset" | "magic", email: string) {
      const answer = kind === "reset" ? await deps.http.auth.forgotPassword(email) : await deps.http.auth.magicLink(email)
      return answer.message
    },
    async logout() {
      await deps.http.auth.logout().catch(() => undefined)
      remember(false)
      setState("session", { user: null, authNote: null })
      keepFresh()
      deps.ws.reconnect()
    }
  } satisfies Pick<Actions, "login" | "register" | "logout" | "mailLink">)

  void loadMe()
  return { loadMe }
}
