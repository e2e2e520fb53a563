/** SQL of the founding waitlist's double opt-in and drip (table `waitlist`, 0001 + 0100) and of unsubscribes. */
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanned } from "../../platform/ops/Spans"

export interface DripRow {
  readonly id: number
  readonly email: string
  readonly drip_step: number
}

export class DripRepo extends Effect.Service<DripRepo>()("app/billing/DripRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie
    return spanned("DripRepo", {
      join: (email: string, source: string | null) =>
        sql`INSERT INTO waitlist (email, source, unsubscribe_token, next_drip_at)
            VALUES (${email}, ${source}, ${randomBytes(24).toString("base64url")}, NULL)
            ON CONFLICT (email) DO NOTHING`.pipe(Effect.asVoid, die),
      /** Confirmation mails caused by one client address since `since`. */
      confirmsFromIp: (ip: string, since: Date) =>
        sql<{ n: string }>`SELECT count(*) AS n FROM waitlist WHERE confirm_ip = ${ip} AND confirm_sent_at >= ${since}`.pipe(
          Effect.map((r) => Number(r[0]!.n)), die),
      /** Takes the address's one confirmation mail of the day; false when it is confirmed, unsubscribed or mailed today. */
      takeConfirmation: (email: string, ip: string, now: Date, dayAgo: Date) =>
        sql<{ id: number }>`
          UPDATE waitlist SET confirm_sent_at = ${now}, confirm_ip = ${ip}
          WHERE email = ${email} AND confirmed_at IS NULL AND unsubscribed_at IS NULL
            AND (confirm_sent_at IS NULL OR confirm_sent_at < ${dayAgo})
            AND NOT EXISTS (SELECT 1 FROM marketing_unsubscribes u WHERE u.email = ${email})
          RETURNING id`.pipe(Effect.map((r) => r.length === 1), die),
      confirm: (email: string, now: Date) =>
        sql<{ id: number }>`
          UPDATE waitlist SET confirmed_at = ${now}, next_drip_at = ${now}, drip_step = 0
          WHERE email = ${email} AND confirmed_at IS NULL AND unsubscribed_at IS NULL RETURNING id`.pipe(Effect.map((r) => r.length === 1), die),
      unsubscribe: (email: string, source: string, now: Date) =>
        Effect.all([
          sql`INSERT INTO marketing_unsubscribes (email, source, created_at) VALUES (${email}, ${source}, ${now}) ON CONFLICT DO NOTHING`,
          sql`UPDATE waitlist SET unsubscribed_at = COALESCE(unsubscribed_at, ${now}), next_drip_at = NULL WHERE email = ${email}`
        ]).pipe(Effect.asVoid, die),
      /** The address of a waitlist's own (pre-JWT) unsubscribe token. */
      emailOfLegacyToken: (token: string) =>
        sql<{ email: string }>`SELECT email FROM waitlist WHERE unsubscribe_token = ${token}`.pipe(Effect.map((r) => r[0]?.email), die),
      isUnsubscribed: (email: string) =>
        sql<{ email: string }>`SELECT email FROM marketing_unsubscribes WHERE email = ${email}`.pipe(Effect.map((r) => r.length > 0), die),
      /** Confirmed sign-ups whose next drip mail is due, locked for this sender. */
      due: (now: Date, steps: number, limit: number) =>
        sql<DripRow>`
          SELECT w.id, w.email, w.drip_step FROM waitlist w
          WHERE w.confirmed_at IS NOT NULL AND w.unsubscribed_at IS NULL AND w.next_drip_at <= ${now} AND w.drip_step < ${steps}
            AND NOT EXISTS (SELECT 1 FROM marketing_unsubscribes u WHERE u.email = w.email)
          ORDER BY w.next_drip_at LIMIT ${limit} FOR UPDATE OF w SKIP LOCKED`.pipe(die),
      advance: (id: number, step: number, next: Date | null) =>
        sql`UPDATE waitlist SET drip_step = ${step}, next_drip_at = ${next} WHERE id = ${id}`.pipe(Effect.asVoid, die)
    } as const)
  })
}) {}
