/** One token's detail page: its recent whale trades and flows (the console API), live trades added from the feed. */
import type { Actions, Deps, SetState, State } from "../../store/types"

export const createToken = (deps: Deps, actions: Partial<Actions>, state: State, setState: SetState) => {
  Object.assign(actions, {
    loadToken: async (token: string) => {
      const key = token.toLowerCase()
      if (state.token.key !== key) setState("token", { key, detail: null, error: null })
      setState("token", { loading: true })
      try {
        const detail = await deps.http.tokens.detail(token)
        if (state.token.key === key) setState("token", { detail, error: null })
      } catch (e) {
        if (state.token.key === key) setState("token", { error: (e as Error).message })
      } finally {
        if (state.token.key === key) setState("token", { loading: false })
      }
    }
  } satisfies Pick<Actions, "loadToken">)
}
