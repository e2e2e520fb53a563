/** Wire shapes of error bodies, shared by server, client and tests. */
import { z } from "zod"

/** One validation problem: where (`loc`, e.g. `["query","limit"]`), what kind (`type`), a message and the input. */
export const ValidationIssue = z.object({
  type: z.string(),
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  input: z.unknown()
})
export type ValidationIssue = z.infer<typeof ValidationIssue>

/** 422 body. */
export const ValidationErrorBody = z.object({ detail: z.array(ValidationIssue) })
export type ValidationErrorBody = z.infer<typeof ValidationErrorBody>

/** Every other error body. */
export const ErrorBody = z.looseObject({ detail: z.string(), code: z.string() })
export type ErrorBody = z.infer<typeof ErrorBody>
