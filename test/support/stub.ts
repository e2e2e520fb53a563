/**
 * Stubs a service for a service-level test: the methods the test supplies, and a loud failure naming any other
 * method the code under test calls (so a test never passes by accident on a silent default).
 */
import { type Context, Layer } from "effect"

export const stub = <I, S extends object>(tag: Context.Tag<I, S>, supplied: Partial<S>): Layer.Layer<I> =>
  Layer.succeed(
    tag,
    new Proxy(supplied as S, {
      get(target, property) {
        if (property in target) return target[property as keyof S]
        // Probes by the runtime (promises, inspection) are not calls of the service.
        if (typeof property === "symbol" || property === "then" || property === "toJSON") return undefined
        throw new Error(`${tag.key}.${String(property)} was used, but the test did not supply it`)
      }
    })
  )
