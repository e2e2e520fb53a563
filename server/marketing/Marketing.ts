/** The founding waitlist (its drip sequence is sent by the drip-mailer actor) and one-click unsubscribe. */
import { Effect } from "effect"
import { MarketingRepo } from "./Repo"

export class Marketing extends Effect.Service<Marketing>()("app/Marketing", {
  dependencies: [MarketingRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* MarketingRepo
    return {
      joinWaitlist: Effect.fn("Marketing.joinWaitlist")(function* (email: string, source?: string) {
        const added = yield* repo.joinWaitlist(email, source ?? null)
        if (added) yield* Effect.logInfo("waitlist: new sign-up").pipe(Effect.annotateLogs({ source: source ?? "-" }))
        return added
      }),
      /** Always succeeds: an unknown or empty token reveals nothing. */
      unsubscribe: Effect.fn("Marketing.unsubscribe")(function* (token: string) {
        if (token.length < 16 || token.length > 128) return false
        return yield* repo.unsubscribe(token)
      })
    } as const
  })
}) {}
