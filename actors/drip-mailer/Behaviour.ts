/**
 * The drip-mailer actor (a singleton, scheduled): every DRIP_CHECK_MS it sends the waitlist drip mails that are
 * due, the trial-ending reminders, and carries out pending downgrades whose period is over — all through the
 * outbox, each exactly once (a unique key per mail is taken in the transaction that queues it), so a restart or a
 * second process never sends twice. Time is Effect's Clock (tests move it). Stateless between rounds.
 */
import { Duration, Effect } from "effect"
import { loopActor } from "../../server/platform/actors/Actor"
import { Drip } from "../../server/domains/billing/Drip"
import { BillingSchedule } from "../../server/domains/billing/Schedule"

export const DripMailerActor = loopActor({
  name: "drip-mailer",
  singleton: true,
  run: (actor) =>
    Effect.gen(function* () {
      const drip = yield* Drip
      const schedule = yield* BillingSchedule
      const every = Duration.millis(drip.checkMs)
      while (true) {
        const drips = yield* drip.sendDue()
        const reminders = yield* schedule.trialReminders()
        const changes = yield* schedule.pendingChanges()
        if (drips + reminders + changes > 0) {
          yield* Effect.logInfo("drip-mailer round").pipe(Effect.annotateLogs({ drips, reminders, pending_changes: changes }))
          actor.handled()
        }
        actor.heartbeat()
        yield* Effect.sleep(every)
      }
    }).pipe(Effect.annotateLogs({ actor: "drip-mailer" }))
})
