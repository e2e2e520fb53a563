/**
 * The founding waitlist with double opt-in, its drip sequence, and one-click unsubscribe.
 *
 *  - `POST /api/founding-waitlist` answers the same whatever the address (no enumeration). It mails a signed
 *    confirmation link (`waitlist_confirm`, 7 days) at most once per address per day, and at most
 *    WAITLIST_CONFIRMS_PER_IP_PER_HOUR per client address (429 beyond); an unsubscribed address gets nothing.
 *  - Following the link confirms the address; only then does the drip start (the drip-mailer sends it).
 *  - Every drip mail carries a signed unsubscribe link (`marketing_unsubscribe`, 400 days, reusable) and the
 *    `List-Unsubscribe` / `List-Unsubscribe-Post` headers; `GET` or `POST /email/unsubscribe?token=` unsubscribes
 *    the address from all marketing mail at once. Waitlist tokens of the earlier scheme still work.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { AppConfig } from "../../platform/Config"
import { Jwt } from "../../platform/infra/Jwt"
import { Mailer } from "../../platform/infra/Mailer"
import { BillingConfig } from "./Config"
import { TooManyConfirmations } from "./Errors"
import { DRIP, dripMail, waitlistConfirmMail } from "./Mails"
import { BillingRepo } from "./Repo"
import { DripRepo } from "./DripRepo"
import { inTransaction } from "../../platform/infra/Sql"

const CONFIRM_TTL_SECONDS = 7 * 86_400
const UNSUBSCRIBE_TTL_SECONDS = 400 * 86_400
const HOUR = 3_600_000

export class Drip extends Effect.Service<Drip>()("app/billing/Drip", {
  dependencies: [DripRepo.Default, BillingRepo.Default, Mailer.Default, Jwt.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* DripRepo
    const billingRepo = yield* BillingRepo
    const mailer = yield* Mailer
    const jwt = yield* Jwt
    const base = (yield* AppConfig).publicBaseUrl
    const settings = (yield* BillingConfig).drip
    const now$ = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
    const transact = <A, E>(e: Effect.Effect<A, E>) => inTransaction(sql, e)

    const unsubscribeUrl = Effect.fn("Drip.unsubscribeUrl")(function* (email: string) {
      const { token } = yield* jwt.sign("marketing_unsubscribe", { sub: email, ttlSeconds: UNSUBSCRIBE_TTL_SECONDS })
      return `${base}/email/unsubscribe?token=${encodeURIComponent(token)}`
    })

    const join = Effect.fn("Drip.join")(function* (email: string, source: string | undefined, ip: string) {
      const now = yield* now$
      yield* repo.join(email, source ?? null)
      const recent = yield* repo.confirmsFromIp(ip, new Date(now.getTime() - HOUR))
      if (recent >= settings.confirmsPerIpPerHour) return yield* Effect.fail(new TooManyConfirmations({ retryAfterSeconds: 3600 }))
      const { token } = yield* jwt.sign("waitlist_confirm", { sub: email, ttlSeconds: CONFIRM_TTL_SECONDS })
      const sent = yield* transact(Effect.gen(function* () {
        if (!(yield* repo.takeConfirmation(email, ip, now, new Date(now.getTime() - 24 * HOUR)))) return false
        const link = `${base}/api/founding-waitlist/confirm?token=${encodeURIComponent(token)}`
        yield* mailer.enqueue({ ...waitlistConfirmMail(link), to: email, kind: "waitlist_confirm", sensitive: true })
        return true
      }))
      if (sent) yield* Effect.logInfo("waitlist: confirmation mailed").pipe(Effect.annotateLogs({ source: source ?? "-" }))
    })

    /** Confirms the address of a genuine link; false for anything else (the page says the same either way). */
    const confirm = Effect.fn("Drip.confirm")(function* (token: string) {
      const verified = yield* jwt.verify("waitlist_confirm", token).pipe(Effect.option)
      if (verified._tag === "None") return false
      yield* repo.confirm(verified.value.sub, yield* now$)
      return true
    })

    /** Unsubscribes the address a token names; false for an unknown or forged token. */
    const unsubscribe = Effect.fn("Drip.unsubscribe")(function* (token: string) {
      if (token.length === 0 || token.length > 4096) return false
      const verified = yield* jwt.verify("marketing_unsubscribe", token).pipe(Effect.option)
      const email = verified._tag === "Some" ? verified.value.sub : token.length >= 16 && token.length <= 128 ? yield* repo.emailOfLegacyToken(token) : undefined
      if (!email) return false
      yield* repo.unsubscribe(email, "link", yield* now$)
      yield* Effect.logInfo("marketing: unsubscribed")
      return true
    })

    /** Stops all marketing mail to an address (a complaint reported by the mail provider, for one). */
    const unsubscribeAddress = Effect.fn("Drip.unsubscribeAddress")(function* (email: string, source: string) {
      yield* repo.unsubscribe(email.trim().toLowerCase(), source, yield* now$)
    })

    /** Sends the drip mails that are due (exactly once per address and step). */
    const sendDue = Effect.fn("Drip.sendDue")(function* () {
      const now = yield* now$
      return yield* transact(Effect.gen(function* () {
        const rows = yield* repo.due(now, DRIP.length, 50)
        for (const row of rows) {
          const step = row.drip_step
          if (yield* billingRepo.claimMail("drip", `${row.email}:${step}`)) {
            const content = dripMail(step, yield* unsubscribeUrl(row.email), base)
            yield* mailer.enqueue({ ...content, to: row.email, kind: `drip_${step + 1}` })
          }
          const last = step + 1 >= DRIP.length
          yield* repo.advance(row.id, step + 1, last ? null : new Date(now.getTime() + settings.intervalHours * HOUR))
        }
        return rows.length
      }))
    })

    return {
      join, confirm, unsubscribe, unsubscribeAddress, unsubscribeUrl, sendDue, isUnsubscribed: repo.isUnsubscribed,
      /** How often the drip-mailer looks for due mails (DRIP_CHECK_MS). */
      checkMs: settings.checkMs
    } as const
  })
}) {}
