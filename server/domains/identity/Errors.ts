/**
 * The identity domain's tagged errors, each with its HTTP answer (`IdentityErrors`, registered by the module).
 * `InvalidCorrection`: an operator's correction that cannot be recorded (a bad address, no reason, an unknown
 * class, an exchange name on a class other than `exchange`).
 */
import { Data } from "effect"
import { BadRequest, errorMap } from "../../platform/http/Errors"

export class InvalidCorrection extends Data.TaggedError("InvalidCorrection")<{ readonly message: string }> {}

export const IdentityErrors = errorMap<InvalidCorrection>()({
  InvalidCorrection: (e) => new BadRequest({ message: e.message, code: "invalid_correction" })
})
