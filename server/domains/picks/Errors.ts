/** Expected failures of the picks domain, each with its HTTP answer (`PicksErrors`, registered by the module). */
import { Data } from "effect"
import { NotFound, errorMap } from "../../platform/http/Errors"

/** No pick (or a VOID one) with this id. */
export class PickNotFound extends Data.TaggedError("PickNotFound")<{ readonly id: number }> {}

/** No pick of a token with this symbol. */
export class TokenHasNoPicks extends Data.TaggedError("TokenHasNoPicks")<{ readonly symbol: string }> {}

export const PicksErrors = errorMap<PickNotFound | TokenHasNoPicks>()({
  PickNotFound: (e) => new NotFound({ message: `No pick ${e.id}`, code: "pick_not_found" }),
  TokenHasNoPicks: (e) => new NotFound({ message: `No picks of ${e.symbol}`, code: "token_not_found" })
})
