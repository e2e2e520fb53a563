import { createResource, For, type Component } from "solid-js"

interface Tier { name: string; display_name: string; monthly_usd: number; features: Array<string> }

const loadPricing = async (): Promise<Array<Tier>> => {
  const res = await fetch("/api/pricing")
  if (!res.ok) throw new Error(`pricing: ${res.status}`)
  return (await res.json()).tiers
}

export const App: Component = () => {
  const [tiers] = createResource(loadPricing)
  return (
    <main style={{ "font-family": "system-ui, sans-serif", "max-width": "60rem", margin: "2rem auto", padding: "0 1rem" }}>
      <h1>Whale Intelligence</h1>
      <p>Real-time analytics of large Ethereum holders. Observational data, not financial advice.</p>
      <section aria-label="pricing">
        <For each={tiers()}>{(t) => <article><h2>{t.display_name}</h2><p>${t.monthly_usd}/month</p></article>}</For>
      </section>
    </main>
  )
}
