/**
 * The expected failures of HTTP itself (validation, 401/403/404/409/413/429, …), and how a domain's own tagged
 * errors become HTTP answers: a domain declares its errors once in its `Errors.ts` with `errorMap` (tag → the
 * HTTP answer, status and code), its module registers the map, and the request pipeline applies it. Handlers and
 * services simply fail with their domain errors; no route maps them, and no domain raises an HTTP error itself.
 * A failure whose tag no map knows is a bug: a 500 that reveals nothing but the request id.
 */
import { Data } from "effect"
import type { ValidationIssue } from "../../../schema/errors"

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

/** The HTTP answer of each tag of a domain's errors (see `errorMap`). */
export type ErrorMap = { readonly [tag: string]: (error: any) => AppError }

/**
 * Declares how each of a domain's tagged errors answers over HTTP. The compiler insists on an entry for every tag of
 * `E`:
 *
 *   export const AlertErrors = errorMap<AlertNotFound | TooManyAlerts>()({
 *     AlertNotFound: (e) => new NotFound({ message: `No alert ${e.id}`, code: "alert_not_found" }),
 *     TooManyAlerts: (e) => new Conflict({ message: `At most ${e.cap} alerts on your tier`, code: "too_many_alerts" })
 *   })
 */
export const errorMap = <E extends { readonly _tag: string }>() =>
  <M extends { readonly [K in E["_tag"]]: (error: Extract<E, { readonly _tag: K }>) => AppError }>(map: M): ErrorMap => map

/** What a handler or guard may fail with: the platform's HTTP errors, or any domain's tagged errors. */
export type RouteError = AppError | { readonly _tag: string }

const APP_TAGS: ReadonlySet<string> = new Set<AppError["_tag"]>([
  "ValidationFailed", "BadRequest", "Unauthorized", "Forbidden", "NotFound", "MethodNotAllowed", "Conflict", "PayloadTooLarge",
  "UnsupportedMediaType", "TooManyRequests", "Unavailable", "UpstreamFailed"
])

/** The HTTP error of a route failure, or undefined when no map knows its tag (a bug: answered 500). */
export const toAppError = (error: RouteError, maps: ErrorMap): AppError | undefined => {
  if (APP_TAGS.has(error._tag)) return error as AppError
  const map = Object.hasOwn(maps, error._tag) ? maps[error._tag] : undefined
  return map ? map(error) : undefined
}

/** Merges the modules' maps; a tag declared twice is refused at start. */
export const mergeErrorMaps = (maps: ReadonlyArray<ErrorMap>): ErrorMap => {
  const merged: Record<string, ErrorMap[string]> = {}
  for (const map of maps) {
    for (const [tag, reply] of Object.entries(map)) {
      if (Object.hasOwn(merged, tag) || APP_TAGS.has(tag)) throw new Error(`error tag ${tag} is declared by two modules`)
      merged[tag] = reply
    }
  }
  return merged
}
