/**
 * `spanned("AccountsRepo", { … })`: every method of a service's object as a span named `<Service>.<method>`, stated
 * once per service instead of an `Effect.fn` per method — the Repos use it. A function whose call returns an Effect
 * runs that Effect in the span; an Effect-valued member (`firstPendingFlag: sql\`…\``) runs in it too; anything else
 * (synchronous helpers, nested objects, constants) is left as it is. The type is the object's own.
 * With tracing off (Effect's native tracer) a span costs an object and no export.
 */
import { Effect } from "effect"

export const spanned = <T extends object>(service: string, methods: T): T => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(methods)) {
    const name = `${service}.${key}`
    if (Effect.isEffect(value)) out[key] = Effect.withSpan(value, name)
    else if (typeof value === "function") {
      out[key] = function (this: unknown, ...args: Array<unknown>) {
        const result: unknown = (value as (...a: Array<unknown>) => unknown).apply(this, args)
        return Effect.isEffect(result) ? Effect.withSpan(result, name) : result
      }
    } else out[key] = value
  }
  return out as T
}
