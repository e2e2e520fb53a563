/**
 * The expected failures any route may raise. Domains raise these (or add their own tag to `AppError` and to the
 * status map in Respond.ts — the compiler then insists the map stays exhaustive).
 */
import { Data } from "effect"
import type { ValidationIssue } from "../../schema/errors"

export class ValidationFailed extends Data.TaggedError("ValidationFailed")<{ readonly issues: ReadonlyArray<ValidationIssue> }> {}

interface Problem {
  readonly message: string
  /** Machine-readable code in the error body (`detail`/`code`); defaults per tag. */
  readonly code?: string
  /** Extra headers for the reply (e.g. `WWW-Authenticate`). */
  readonly headers?: Readonly<Record<string, string>>
  /** Extra fields merged into the error body. */
  readonly extra?: Readonly<Record<string, unknown>>
}

export class BadRequest extends Data.TaggedError("BadRequest")<Problem> {}
export class Unauthorized extends Data.TaggedError("Unauthorized")<Problem> {}
export class Forbidden extends Data.TaggedError("Forbidden")<Problem> {}
export class NotFound extends Data.TaggedError("NotFound")<Problem> {}
export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<Problem & { readonly allow: ReadonlyArray<string> }> {}
export class Conflict extends Data.TaggedError("Conflict")<Problem> {}
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<Problem> {}
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<Problem> {}
export class TooManyRequests extends Data.TaggedError("TooManyRequests")<Problem & { readonly retryAfterSeconds: number }> {}
export class Unavailable extends Data.TaggedError("Unavailable")<Problem & { readonly retryAfterSeconds?: number }> {}
export class UpstreamFailed extends Data.TaggedError("UpstreamFailed")<Problem> {}

export type AppError =
  | ValidationFailed
  | BadRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | MethodNotAllowed
  | Conflict
  | PayloadTooLarge
  | UnsupportedMediaType
  | TooManyRequests
  | Unavailable
  | UpstreamFailed
