/**
 * Telling "a dependency is not there right now" apart from a bug. HTTP answers the first with 503 and a
 * `Retry-After` (server/platform/http/Respond.ts); the actor supervisor retries it without spending the actor's restart budget
 * (platform/actors/Supervisor.ts), so an outage longer than the restart window does not leave actors `failed`.
 */
import { Cause } from "effect"

/** Network errors and PostgreSQL states that mean "the database is not there right now", not "this request is wrong". */
const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "57P01", "57P02", "57P03", "53300"])
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Socket closed unexpectedly|The client is closed|client is offline|Connection is closed/

/**
 * Whether a defect is the database (or another store) being unreachable: an `SqlError` whose cause is a refused or
 * lost connection, a server shutting down or starting up, or an exhausted connection slot. Those are 503 with a
 * `Retry-After`, not 500: the request was fine and a retry will succeed once the dependency is back.
 */
export const isUnavailable = (defect: unknown): boolean => {
  let e: unknown = defect
  for (let depth = 0; depth < 6 && e !== null && typeof e === "object"; depth++) {
    const x = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }
    if (typeof x.code === "string" && (UNAVAILABLE_CODES.has(x.code) || x.code.startsWith("08"))) return true
    if (typeof x.message === "string" && UNAVAILABLE_MESSAGES.test(x.message)) return true
    // AggregateError (a connect to several addresses): any of them.
    if (Array.isArray(x.errors) && x.errors.some(isUnavailable)) return true
    e = x.cause
  }
  return false
}

/** Whether a cause holds only dependency outages (failures or defects), at least one. */
export const causeIsUnavailable = (cause: Cause.Cause<unknown>): boolean => {
  const all = [...Cause.failures(cause), ...Cause.defects(cause)]
  return all.length > 0 && all.every(isUnavailable)
}
