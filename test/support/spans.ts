/**
 * A tracer that keeps every span it starts (Effect's own spans, so trace ids, parents and links are as the code
 * made them): `Layer.setTracer(collector.tracer)` or `Effect.withTracer(collector.tracer)`, then read
 * `collector.spans`. Installing it is "tracing on" for the code under test (ops/TraceContext.ts).
 */
import { Effect, type Tracer as T, Tracer } from "effect"

export const spanCollector = () => {
  const native = Effect.runSync(Effect.tracer)
  const spans: Array<T.Span> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) => {
      const span = native.span(name, parent, context, links, startTime, kind, options)
      spans.push(span)
      return span
    },
    context: (f, fiber) => native.context(f, fiber)
  })
  return { tracer, spans, named: (name: string) => spans.filter((s) => s.name === name) } as const
}
