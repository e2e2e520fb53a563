/**
 * The route table: static paths in a map, parameterised paths by segment count, `/*` prefixes last.
 * A known path with the wrong method yields the methods it allows (405 with `Allow`); HEAD falls back to GET.
 */
import type { AnyRoute, Method } from "./Route"

export type Lookup =
  | { readonly kind: "found"; readonly route: AnyRoute; readonly params: Record<string, string> }
  | { readonly kind: "wrong-method"; readonly allow: ReadonlyArray<string> }
  | { readonly kind: "none" }

interface Pattern {
  readonly template: string
  readonly segments: ReadonlyArray<{ readonly literal: string } | { readonly param: string }>
  readonly methods: Map<string, AnyRoute>
}

const PARAM = /^\{(\w+)\}$/

export class DuplicateRoute extends Error {}

export const compileRoutes = (routes: ReadonlyArray<AnyRoute>) => {
  const staticPaths = new Map<string, Map<string, AnyRoute>>()
  const patterns = new Map<number, Array<Pattern>>()
  const prefixes: Array<{ readonly prefix: string; readonly methods: Map<string, AnyRoute> }> = []

  const add = (methods: Map<string, AnyRoute>, r: AnyRoute) => {
    if (methods.has(r.method)) throw new DuplicateRoute(`${r.method} ${r.path} is declared twice`)
    methods.set(r.method, r)
  }

  for (const r of routes) {
    if (r.path.endsWith("/*")) {
      const prefix = r.path.slice(0, -1)
      const existing = prefixes.find((p) => p.prefix === prefix)
      if (existing) add(existing.methods, r)
      else prefixes.push({ prefix, methods: new Map([[r.method, r]]) })
      continue
    }
    const parts = r.path.split("/").slice(1)
    if (!parts.some((p) => PARAM.test(p))) {
      const methods = staticPaths.get(r.path) ?? new Map()
      staticPaths.set(r.path, methods)
      add(methods, r)
      continue
    }
    const list = patterns.get(parts.length) ?? []
    patterns.set(parts.length, list)
    let pattern = list.find((p) => p.template === r.path)
    if (!pattern) {
      pattern = {
        template: r.path,
        segments: parts.map((p) => {
          const m = PARAM.exec(p)
          return m ? { param: m[1]! } : { literal: p }
        }),
        methods: new Map()
      }
      // Literal segments win over parameters at the same position: sort more literal patterns first.
      list.push(pattern)
      list.sort((a, b) => literalScore(b) - literalScore(a))
    }
    add(pattern.methods, r)
  }
  prefixes.sort((a, b) => b.prefix.length - a.prefix.length)

  const pick = (methods: Map<string, AnyRoute>, method: string, params: Record<string, string>): Lookup => {
    const route = methods.get(method) ?? (method === "HEAD" ? methods.get("GET") : undefined)
    if (route) return { kind: "found", route, params }
    const allow = [...methods.keys()]
    if (allow.includes("GET")) allow.push("HEAD")
    return { kind: "wrong-method", allow }
  }

  return (method: string, path: string): Lookup => {
    const exact = staticPaths.get(path)
    if (exact) return pick(exact, method, {})
    const parts = path.split("/").slice(1)
    let wrong: Lookup | undefined
    for (const p of patterns.get(parts.length) ?? []) {
      const params = matchSegments(p, parts)
      if (!params) continue
      const found = pick(p.methods, method, params)
      if (found.kind === "found") return found
      wrong ??= found
    }
    if (wrong) return wrong
    for (const p of prefixes) {
      if (path.startsWith(p.prefix) || path + "/" === p.prefix) return pick(p.methods, method, { "*": path.slice(p.prefix.length) })
    }
    return { kind: "none" }
  }
}

const matchSegments = (p: Pattern, parts: ReadonlyArray<string>): Record<string, string> | undefined => {
  const params: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    const seg = p.segments[i]!
    const actual = parts[i]!
    if ("literal" in seg) {
      if (seg.literal !== actual) return undefined
    } else {
      if (actual === "") return undefined
      params[seg.param] = safeDecode(actual)
    }
  }
  return params
}

const literalScore = (p: Pattern) => p.segments.reduce((n, s, i) => n + ("literal" in s ? 2 ** (16 - i) : 0), 0)

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

export const METHODS: ReadonlyArray<Method> = ["GET", "POST", "PUT", "DELETE", "PATCH"]
