/** Expected failures of the API-keys domain, each with its HTTP answer (`ApiKeyErrors`, registered by the module). */
import { Data } from "effect"
import { Conflict, NotFound, errorMap } from "../../platform/http/Errors"

/** The account has the most active keys it may have. */
export class TooManyKeys extends Data.TaggedError("TooManyKeys")<{ readonly max: number }> {}
/** No active key of the caller has this prefix. */
export class KeyNotFound extends Data.TaggedError("KeyNotFound")<{ readonly prefix: string }> {}

export const ApiKeyErrors = errorMap<TooManyKeys | KeyNotFound>()({
  TooManyKeys: (e) => new Conflict({ message: `At most ${e.max} active keys; revoke one first`, code: "too_many_keys", extra: { max_active: e.max } }),
  KeyNotFound: (e) => new NotFound({ message: `No active key with prefix ${e.prefix}`, code: "key_not_found" })
})
