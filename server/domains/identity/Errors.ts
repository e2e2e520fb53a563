/**
 * The identity domain's tagged errors, each with its HTTP answer (`IdentityErrors`, registered by the module).
 * `InvalidCorrection`: an operator's correction that cannot be recorded (a bad address, no reason, an unknown
 * class, an exchange name on a class other than `exchange`). `CandidateNotFound`: no such candidate in the discovery
 * queue. `CandidateRefused`: an operator's decision the candidate's state does not allow (already rejected, the
 * tracked set full, an address tracked from another source).
 */
import { Data } from "effect"
import { BadRequest, Conflict, errorMap, NotFound } from "../../platform/http/Errors"

export class InvalidCorrection extends Data.TaggedError("InvalidCorrection")<{ readonly message: string }> {}

export class CandidateNotFound extends Data.TaggedError("CandidateNotFound")<{ readonly address: string }> {}
export class CandidateRefused extends Data.TaggedError("CandidateRefused")<{ readonly message: string }> {}

export const IdentityErrors = errorMap<InvalidCorrection | CandidateNotFound | CandidateRefused>()({
  InvalidCorrection: (e) => new BadRequest({ message: e.message, code: "invalid_correction" }),
  CandidateNotFound: (e) => new NotFound({ message: `${e.address} is not in the discovery queue`, code: "candidate_not_found" }),
  CandidateRefused: (e) => new Conflict({ message: e.message, code: "candidate_refused" })
})
