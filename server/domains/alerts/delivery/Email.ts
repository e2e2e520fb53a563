/**
 * The email channel: a mail per user and bundle of up to BUNDLE alerts, to the account's address, through the mail
 * outbox (SMTP after commit, with its own retries). `compose` gives the round's outcomes and the outbox inserts, which
 * the round runs in the transaction that settles it (a crash cannot queue a mail twice).
 */
import { Effect } from "effect"
import { Accounts } from "../../accounts/Accounts"
import { AppConfig } from "../../../platform/Config"
import { MailOutbox } from "../../../platform/infra/MailOutbox"
import { AlertsConfig } from "../Config"
import { emailOf } from "../Format"
import { failure, foldedOf, groupByUser, linkOf, ok, type Outcome } from "./Outcome"
import type { DeliveryRow } from "./Rows"

/** Alerts per mail. */
const BUNDLE = 10

export class EmailChannel extends Effect.Service<EmailChannel>()("app/AlertEmailChannel", {
  dependencies: [AlertsConfig.Default, Accounts.Default, MailOutbox.Default],
  effect: Effect.gen(function* () {
    const config = yield* AlertsConfig
    const app = yield* AppConfig
    const accounts = yield* Accounts
    const outbox = yield* MailOutbox

    return {
      /** The round's mails (null: none) and the rows' outcomes: sent once queued, failed without an address. */
      compose: Effect.fn("EmailChannel.compose")(function* (rows: ReadonlyArray<DeliveryRow>) {
        const outcomes: Array<Outcome> = []
        const mails: Array<Parameters<typeof outbox.insert>[0]> = []
        const byUser = groupByUser(rows)
        const users = [...byUser.keys()]
        const addresses = new Map(yield* Effect.forEach(users, (u) =>
          accounts.me(u).pipe(Effect.option, Effect.map((me) => [u, me._tag === "Some" ? (me.value as { email?: string }).email : undefined] as const)), { concurrency: 8 }))
        for (const u of users) {
          const own = byUser.get(u)!
          const address = addresses.get(u)
          if (!address) {
            outcomes.push(...own.map((r) => failure(r, "no email address", false, config.retryScale)))
            continue
          }
          for (let i = 0; i < own.length; i += BUNDLE) {
            const part = own.slice(i, i + BUNDLE)
            const content = part.map((r) => emailOf({ title: r.title, summary: r.summary, url: linkOf(r) }, app.publicBaseUrl, { folded: foldedOf(r) }))
            mails.push({
              kind: "alert", userId: u, to: address, sensitive: false,
              subject: part.length === 1 ? content[0]!.subject : `[Whale alert] ${part.length} alerts: ${part[0]!.title}`,
              text: content.map((m) => `${m.subject.replace("[Whale alert] ", "")}\n${m.text}`).join("\n\n----\n\n"),
              html: content.map((m) => m.html).join("<hr>")
            })
            outcomes.push(...part.map(ok))
          }
        }
        const queue = mails.length === 0 ? null : Effect.forEach(mails, outbox.insert, { discard: true })
        return { outcomes, queue }
      })
    } as const
  })
}) {}
