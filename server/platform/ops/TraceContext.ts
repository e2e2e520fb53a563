/**
 * Trace context across the bus (W3C Trace Context, `traceparent`): a publisher's span travels with the entries it
 * publishes (BusRedis and BusMemory store it beside the payload, never in it), and the consumer's handling span
 * continues it (actors/Mailbox), so block → fan-out → notifier is one trace in the collector.
 *
 * With tracing off (Effect's native tracer: Tracing.ts installs none) nothing is attached and nothing continued: a
 * publish costs one comparison.
 */
import { Effect, Option, Tracer } from "effect"

/** The tracer every process has when OTEL_EXPORTER_OTLP_ENDPOINT is unset (spans kept nowhere). */
const NATIVE = Effect.runSync(Effect.tracer)

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** `00-<trace id>-<span id>-<flags>` of the current span, or undefined when there is none or tracing is off. */
export const currentTraceparent: Effect.Effect<string | undefined> = Effect.flatMap(Effect.tracer, (tracer) =>
  tracer === NATIVE
    ? Effect.succeed(undefined)
    : Effect.map(Effect.currentSpan.pipe(Effect.option), (span) =>
        Option.isSome(span) && /^[0-9a-f]{32}$/.test(span.value.traceId)
          ? `00-${span.value.traceId}-${span.value.spanId}-${span.value.sampled ? "01" : "00"}`
          : undefined))

/** The span a `traceparent` names, as a parent or a link (undefined when it is not one). */
export const parseTraceparent = (text: string): Tracer.ExternalSpan | undefined => {
  const m = TRACEPARENT.exec(text)
  return m ? Tracer.externalSpan({ traceId: m[1]!, spanId: m[2]!, sampled: (parseInt(m[3]!, 16) & 1) === 1 }) : undefined
}

/** Links beyond the first this many are dropped (a read of thousands of entries from as many publishes). */
const MAX_LINKS = 32

/**
 * Runs `effect` in a consumer span `name` continuing the publishers' traces: the first distinct context is its
 * parent, the others (a read that gathers several publishes) are links. Without any context, `effect` as it is.
 */
export const continueTraces = <A, E, R>(
  name: string,
  traceparents: ReadonlyArray<string | undefined>,
  attributes: Record<string, unknown>,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const spans: Array<Tracer.ExternalSpan> = []
  const seen = new Set<string>()
  for (const t of traceparents) {
    if (t === undefined || seen.has(t) || spans.length > MAX_LINKS) continue
    seen.add(t)
    const span = parseTraceparent(t)
    if (span) spans.push(span)
  }
  if (spans.length === 0) return effect
  const [parent, ...others] = spans
  return Effect.withSpan(effect, name, {
    parent,
    kind: "consumer",
    attributes,
    links: others.map((span) => ({ _tag: "SpanLink", span, attributes: {} }))
  })
}
