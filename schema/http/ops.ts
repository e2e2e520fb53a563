/** The operators' endpoints (server/platform/ops). */
import { z } from "zod"

export const RestartParams = z.object({ name: z.string().regex(/^[\w.:-]{1,64}$/, "not an actor name") })
export const RestartAccepted = z.object({ accepted: z.literal(true), actor: z.string(), processes: z.number().int() })
export type RestartAccepted = z.infer<typeof RestartAccepted>
