/**
 * Attempt counters for the accounts domain on `Kv.incrWindow` (exact across processes with Redis). Keys name a
 * hash of the e-mail, never the address, and are counted whether or not an account exists — a throttle answer
 * reveals nothing about registration.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { Kv } from "../../platform/infra/Kv"
import { AccountsConfig } from "./Config"
import { Throttled } from "./Errors"

const digest = (s: string) => createHash("sha256").update(s).digest("base64url").slice(0, 22)

export class AuthThrottle extends Effect.Service<AuthThrottle>()("app/AuthThrottle", {
  dependencies: [AccountsConfig.Default],
  effect: Effect.gen(function* () {
    const kv = yield* Kv
    const auth = yield* AccountsConfig

    /** Counts one hit on `key`; fails with the seconds left in the window once `max` is passed. */
    const hit = (key: string, max: number, windowSeconds: number, what: string) =>
      Effect.gen(function* () {
        const n = yield* kv.incrWindow(key, windowSeconds)
        if (n <= max) return
        const ttl = yield* kv.ttl(key)
        return yield* Effect.fail(new Throttled({ retryAfterSeconds: ttl > 0 ? ttl : windowSeconds, what }))
      })

    return {
      /** A login (or current-password) attempt: per client IP, then per account. */
      login: Effect.fn("AuthThrottle.login")(function* (email: string, ip: string) {
        yield* hit(`auth:login:ip:${ip}`, auth.loginMaxPerIp, auth.loginWindowSeconds, "login")
        yield* hit(`auth:login:acct:${digest(email)}`, auth.loginMaxPerAccount, auth.loginWindowSeconds, "login")
      }),
      /** Registrations per client IP (an hour, 4× the login budget). */
      register: Effect.fn("AuthThrottle.register")(function* (ip: string) {
        yield* hit(`auth:register:ip:${ip}`, auth.loginMaxPerIp, 3600, "register")
      }),
      /** Whether another account e-mail of this kind may go to this address this hour (silent budget). */
      mailAllowed: Effect.fn("AuthThrottle.mailAllowed")(function* (kind: string, email: string) {
        const n = yield* kv.incrWindow(`auth:mail:${kind}:${digest(email)}`, 3600)
        return n <= auth.mailsPerAddressPerHour
      }),
      /** The same budget, failing with a 429-able error (logged-in requests may be told). */
      mail: Effect.fn("AuthThrottle.mail")(function* (kind: string, email: string) {
        yield* hit(`auth:mail:${kind}:${digest(email)}`, auth.mailsPerAddressPerHour, 3600, kind)
      })
    } as const
  })
}) {}
