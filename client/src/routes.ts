/**
 * The console's pages and menu, both from CONSOLE_PAGES (schema/http/console.ts), the list the server reads too (it
 * answers each path with the shell, so a reload works). Each page's component is the default export of
 * `features/<view>.tsx`, found by Vite at build time: adding a page is one line in CONSOLE_PAGES and its folder.
 */
import type { Component } from "solid-js"
import { CONSOLE_PAGES, type ConsolePath } from "../../schema/http/console"

export interface Page {
  readonly path: ConsolePath
  readonly title: string
  readonly component: Component<{ params: Record<string, string> }>
}

const views = import.meta.glob<{ default?: Component<{ params: Record<string, string> }> }>("./features/*/*.tsx", { eager: true })

export const ROUTES: ReadonlyArray<Page> = CONSOLE_PAGES.map((p) => {
  const component = views[`./features/${p.view}.tsx`]?.default
  if (component === undefined) throw new Error(`console page ${p.path}: features/${p.view}.tsx has no default export`)
  return { path: p.path, title: p.title, component }
})

export const NAV: ReadonlyArray<{ readonly href: ConsolePath; readonly label: string; readonly admin?: boolean }> = CONSOLE_PAGES.flatMap((p) =>
  "nav" in p ? [{ href: p.path, label: p.nav, ...("admin" in p ? { admin: p.admin } : {}) }] : [])
