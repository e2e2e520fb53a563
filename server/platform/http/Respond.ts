/**
 * The one place where failures become HTTP answers. Every tag of `AppError` has a status here (the `satisfies`
 * keeps it exhaustive); anything else — a defect, an interruption — is a 500 that reveals nothing but the request id.
 */
import { Cause, Option } from "effect"
import { toAppError, type AppError, type ErrorMap, type RouteError } from "./Errors"
import { Reply, type Header } from "./Reply"
import { isUnavailable } from "../infra/Unavailable"

const STATUS = {
  ValidationFailed: 422,
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  Unavailable: 503,
  UpstreamFailed: 502
} as const satisfies Record<AppError["_tag"], number>

const DEFAULT_CODE: Record<AppError["_tag"], string> = {
  ValidationFailed: "validation_error",
  BadRequest: "bad_request",
  Unauthorized: "unauthorized",
  Forbidden: "forbidden",
  NotFound: "not_found",
  MethodNotAllowed: "method_not_allowed",
  Conflict: "conflict",
  PayloadTooLarge: "payload_too_large",
  UnsupportedMediaType: "unsupported_media_type",
  TooManyRequests: "rate_limited",
  Unavailable: "unavailable",
  UpstreamFailed: "upstream_failed"
}

export const statusOf = (error: AppError): number => STATUS[error._tag]

export const errorReply = (error: AppError): Reply => {
  if (error._tag === "ValidationFailed") return Reply.json({ detail: error.issues }, 422)
  const headers: Array<Header> = Object.entries(error.headers ?? {})
  if (error._tag === "MethodNotAllowed") headers.push(["allow", error.allow.join(", ")])
  if (error._tag === "TooManyRequests") headers.push(["retry-after", String(Math.max(0, Math.ceil(error.retryAfterSeconds)))])
  if (error._tag === "Unavailable" && error.retryAfterSeconds !== undefined) headers.push(["retry-after", String(Math.ceil(error.retryAfterSeconds))])
  return Reply.json({ ...error.extra, detail: error.message, code: error.code ?? DEFAULT_CODE[error._tag] }, STATUS[error._tag], headers)
}

export const internalErrorReply = (requestId: string) =>
  Reply.json({ detail: "Internal server error", code: "internal_error", request_id: requestId }, 500)

/**
 * The reply for a failed handler, and whether it is a server fault worth logging as an error. Domain errors are
 * answered through the modules' error maps; one that no map knows is a fault.
 */
export const replyForCause = (cause: Cause.Cause<RouteError>, requestId: string, maps: ErrorMap = {}): { reply: Reply; fault: boolean } => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = toAppError(failure.value, maps)
    return error ? { reply: errorReply(error), fault: false } : { reply: internalErrorReply(requestId), fault: true }
  }
  if (Cause.isInterruptedOnly(cause)) {
    return { reply: Reply.json({ detail: "Service is shutting down", code: "shutting_down" }, 503, [["retry-after", "1"]]), fault: false }
  }
  const defects = Cause.defects(cause)
  if (defects.length > 0 && [...defects].every(isUnavailable)) {
    return { reply: Reply.json({ detail: "The database is unavailable; retry shortly", code: "database_unavailable" }, 503, [["retry-after", "5"]]), fault: false }
  }
  return { reply: internalErrorReply(requestId), fault: true }
}
