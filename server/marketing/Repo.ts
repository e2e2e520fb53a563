import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export class MarketingRepo extends Effect.Service<MarketingRepo>()("app/MarketingRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      /** Adds the address once; returns whether it was new. */
      joinWaitlist: (email: string, source: string | null) =>
        sql<{ id: number }>`
          INSERT INTO waitlist (email, source, unsubscribe_token)
          VALUES (${email}, ${source}, ${randomBytes(24).toString("base64url")})
          ON CONFLICT (email) DO NOTHING RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),
      /** Marks the holder of the token unsubscribed; returns whether a row matched. */
      unsubscribe: (token: string) =>
        sql<{ id: number }>`
          UPDATE waitlist SET unsubscribed_at = COALESCE(unsubscribed_at, now()), next_drip_at = NULL
          WHERE unsubscribe_token = ${token} RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)
    } as const
  })
}) {}
