/** A titled panel of the console's grid. */
import { Show, type JSX, type ParentComponent } from "solid-js"

export const Card: ParentComponent<{ title: string; aside?: JSX.Element; class?: string; id?: string }> = (props) => (
  <section class={`card ${props.class ?? ""}`} aria-label={props.title} id={props.id}>
    <header class="card-head">
      <h2>{props.title}</h2>
      <Show when={props.aside}>
        <div class="card-aside">{props.aside}</div>
      </Show>
    </header>
    {props.children}
  </section>
)
