/**
 * Messages of the notifier actor, on the `notify` stream: deliveries recorded by the fan-out (`DeliverMany`, many
 * users at once) or a test send (`Deliver`, one user). The notifier claims each delivery's pending channels in the database before sending, so handling a
 * message twice (a redelivery after a crash) sends nothing twice.
 */
import { z } from "zod"

export const Deliver = z.object({
  _tag: z.literal("Deliver"),
  messageId: z.string(),
  user_id: z.number().int(),
  delivery_ids: z.array(z.number().int()).min(1).max(5000),
  /** When the record was stored or the event published (epoch ms): the benchmark's block-stored → delivered clock. */
  stored_at: z.number().nullable().optional()
})
export type Deliver = z.infer<typeof Deliver>

/** Deliveries of any number of users (the fan-out's batches, up to 5,000 ids): one message instead of one per user. */
export const DeliverMany = z.object({
  _tag: z.literal("DeliverMany"),
  messageId: z.string(),
  delivery_ids: z.array(z.number().int()).min(1).max(5000)
})
export type DeliverMany = z.infer<typeof DeliverMany>

export const NotifierMessage = z.discriminatedUnion("_tag", [Deliver, DeliverMany])
export type NotifierMessage = z.infer<typeof NotifierMessage>

export const deliverMessage = (userId: number, ids: ReadonlyArray<number>, storedAt: number | null = null): Deliver => ({
  _tag: "Deliver",
  messageId: `deliver:${userId}:${ids.length <= 8 ? ids.join(",") : `${ids[0]}..${ids[ids.length - 1]}#${ids.length}`}`,
  user_id: userId,
  delivery_ids: [...ids],
  stored_at: storedAt
})

/** The message id names the batch by its first and last delivery id and its size (a re-publish is the same batch). */
export const deliverManyMessage = (ids: ReadonlyArray<number>): DeliverMany => ({
  _tag: "DeliverMany",
  messageId: `deliver-many:${ids[0]}..${ids[ids.length - 1]}#${ids.length}`,
  delivery_ids: [...ids]
})
