/**
 * Guards that need no accounts: anonymous access and the shared secret of the internal endpoints.
 * Session, tier, admin and API-key guards live with the accounts and API-key domains and have the same shape.
 */
import { timingSafeEqual, createHash } from "node:crypto"
import { Effect, Redacted } from "effect"
import { Unauthorized } from "./Errors"
import type { Guard as GuardT, RequestInfo } from "./Route"

/** Constant-time comparison of two secrets of any length (both are hashed first). */
export const secretsEqual = (given: string, expected: string) =>
  timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest())

/** The header carrying the shared secret of the internal endpoints (`process-tx`, `custom-wallet-tx`, `dispatch`). */
export const INTERNAL_SECRET_HEADER = "x-internal-secret"

export const Guard = {
  anon: { name: "anon", run: () => Effect.succeed(undefined) } satisfies GuardT<undefined>,

  /** A shared secret in a header, compared in constant time. */
  sharedSecret: (secret: Redacted.Redacted, header = INTERNAL_SECRET_HEADER): GuardT<undefined> => ({
    name: "shared-secret",
    security: [{ internalSecret: [] }],
    run: (req: RequestInfo) => {
      const given = req.headers.get(header)
      return given !== undefined && secretsEqual(given, Redacted.value(secret))
        ? Effect.succeed(undefined)
        : Effect.fail(new Unauthorized({ message: `Missing or wrong ${header} header`, code: "bad_secret" }))
    }
  }),

  /** `Authorization: Bearer <secret>`, compared in constant time (an operator's token, not a user's session). */
  bearerSecret: (secret: Redacted.Redacted): GuardT<undefined> => ({
    name: "bearer-secret",
    security: [{ metricsToken: [] }],
    run: (req: RequestInfo) => {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "")?.[1]
      return given !== undefined && secretsEqual(given, Redacted.value(secret))
        ? Effect.succeed(undefined)
        : Effect.fail(new Unauthorized({ message: "Missing or wrong bearer token", code: "bad_token" }))
    }
  })
} as const
