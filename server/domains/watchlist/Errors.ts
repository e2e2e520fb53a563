/** Expected failures of the watchlist, each with its HTTP answer (`WatchlistErrors`, registered by the module). */
import { Data } from "effect"
import { Conflict, NotFound, ValidationFailed, errorMap } from "../../platform/http/Errors"

export class UnknownToken extends Data.TaggedError("UnknownToken")<{ readonly token: string }> {}
export class WatchlistFull extends Data.TaggedError("WatchlistFull")<{ readonly cap: number }> {}
export class ItemNotFound extends Data.TaggedError("ItemNotFound")<{ readonly id: number }> {}

export const WatchlistErrors = errorMap<UnknownToken | WatchlistFull | ItemNotFound>()({
  UnknownToken: (e) =>
    new ValidationFailed({ issues: [{ type: "value_error", loc: ["body", "token"], msg: "Unknown token: give a contract address or a known symbol", input: e.token }] }),
  WatchlistFull: (e) => new Conflict({ message: `Your watchlist holds ${e.cap} tokens on your tier; remove one or upgrade`, code: "watchlist_full", extra: { cap: e.cap } }),
  ItemNotFound: () => new NotFound({ message: "No such watchlist item", code: "item_not_found" })
})
