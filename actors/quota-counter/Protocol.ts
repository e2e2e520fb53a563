/**
 * Messages of the quota-counter actor, on the `api.usage` stream: one per counted keyed request. Counts are the
 * values the request path read from its atomic counters (Redis), so handling a message twice, late or out of
 * order changes nothing (the highest count wins).
 */
import { z } from "zod"

export const ApiRequestCounted = z.object({
  _tag: z.literal("ApiRequestCounted"),
  messageId: z.string(),
  userId: z.number().int(),
  keyId: z.number().int(),
  /** UTC day, `YYYY-MM-DD`. */
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  endpoint: z.string(),
  /** Requests of the account that day, this one included. */
  count: z.number().int().nonnegative(),
  /** Requests of the key that day, this one included. */
  keyCount: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  /** ISO 8601. */
  at: z.string(),
  /** Counted in process while Redis was unreachable. */
  degraded: z.boolean()
})
export type ApiRequestCounted = z.infer<typeof ApiRequestCounted>

export const QuotaCounterMessage = z.discriminatedUnion("_tag", [ApiRequestCounted])
export type QuotaCounterMessage = z.infer<typeof QuotaCounterMessage>
