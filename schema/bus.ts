/**
 * What each bus stream carries: `StreamPayloads` maps a stream's name to its payload type, and the platform's
 * `bus.publish(stream, payload)` / `publishMany` take `PayloadOf<stream>` — publishing a payload of the wrong shape
 * to a listed stream does not compile (test/platform/bus.types.test.ts). A stream not listed here (a test's, a
 * dead-letter stream, one private to a domain) takes any JSON object.
 *
 * To type a stream: one line below, its name from the constants (`STREAMS`, `CONSOLE_STREAMS`) and its message
 * type. A family of streams (shards) is one line with a template-literal key, e.g. `[shard: \`notify.${number}\`]:
 * NotifyMessage`. Consumers still parse what they read (a stream actor's `schema`): the types bind publishers.
 */
import type { ApiRequestCounted, ChainStreamMessage, DomainEvent, EchoCommand, NotifyMessage, STREAMS } from "./streams"
import type { CONSOLE_STREAMS, IndexSnapshot, OpsCommand, TopTokensSnapshot, UserEvent } from "./ws"

export interface StreamPayloads {
  [STREAMS.chainTx]: ChainStreamMessage
  [STREAMS.notify]: NotifyMessage
  /** A shard's own `notify` (ALERT_SHARDS > 1, `notifyStreamOf`). */
  [shard: `notify.${number}`]: NotifyMessage
  [STREAMS.apiUsage]: ApiRequestCounted
  [STREAMS.echoCmd]: EchoCommand
  [STREAMS.domainEvents]: DomainEvent
  [CONSOLE_STREAMS.user]: UserEvent & { readonly messageId?: string }
  [CONSOLE_STREAMS.index]: IndexSnapshot & { readonly messageId?: string }
  [CONSOLE_STREAMS.topTokens]: TopTokensSnapshot & { readonly messageId?: string }
  [CONSOLE_STREAMS.opsCommands]: OpsCommand
}

/** Any JSON object: the payload of a stream `StreamPayloads` does not list. */
export type AnyPayload = Record<string, unknown>

/** The payload type of stream `S`. */
export type PayloadOf<S extends string> = S extends keyof StreamPayloads ? StreamPayloads[S] : AnyPayload
