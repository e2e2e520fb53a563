/** The console's shell: the store, the top bar, the demo-data note, and the page of the current path. */
import { createEffect, createMemo, Show, type Component } from "solid-js"
import { Dynamic } from "solid-js/web"
import { DemoBanner } from "./components/DemoBanner"
import { Header } from "./components/Header"
import { NotFound } from "./components/NotFound"
import { ReplayNote } from "./components/ReplayNote"
import { location, match } from "./router"
import { ROUTES } from "./routes"
import { StoreProvider } from "./store"

export const App: Component = () => {
  const current = createMemo(() => {
    for (const page of ROUTES) {
      const params = match(page.path, location().path)
      if (params) return { page, params }
    }
    return null
  })
  createEffect(() => {
    document.title = `${current()?.page.title ?? "Not found"} · Whale Intelligence`
  })
  return (
    <StoreProvider>
      <Header />
      <DemoBanner />
      <ReplayNote />
      <main class="main">
        <Show when={current()} keyed fallback={<NotFound />}>
          {(c) => <Dynamic component={c.page.component} params={c.params} />}
        </Show>
      </main>
      <footer class="footer muted">
        Observational on-chain data about large Ethereum holders — not financial advice. Public figures CC-BY-4.0.
      </footer>
    </StoreProvider>
  )
}
