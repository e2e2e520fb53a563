import type { Component } from "solid-js"
import { Card } from "./Card"
import { Link } from "../router"

export const NotFound: Component = () => (
  <Card title="Not found" class="narrow">
    <p>There is no such page in the console. <Link href="/">Back to the overview</Link></p>
  </Card>
)
