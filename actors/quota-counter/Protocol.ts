/** Messages of the quota-counter actor: the `api.usage` stream's `ApiRequestCounted` (schema/streams.ts). */
import { z } from "zod"
import { ApiRequestCounted } from "../../schema/streams"

export { ApiRequestCounted }

export const QuotaCounterMessage = z.discriminatedUnion("_tag", [ApiRequestCounted])
export type QuotaCounterMessage = z.infer<typeof QuotaCounterMessage>
