/** The accounts domain's settings (its config slice): sessions, password hashing, sign-in throttling, account mail. */
import { Config, Effect } from "effect"

export class AccountsConfig extends Effect.Service<AccountsConfig>()("app/accounts/AccountsConfig", {
  effect: Config.all({
    /** Lifetime of a session JWT (the `whale_token` cookie); refresh tokens renew it. */
    sessionTtlSeconds: Config.integer("SESSION_TTL_SECONDS").pipe(Config.withDefault(900)),
    /** Lifetime of a session (refresh-token family) since its last refresh. */
    refreshTtlSeconds: Config.integer("REFRESH_TTL_SECONDS").pipe(Config.withDefault(30 * 86_400)),
    /** scrypt cost as log2(N); never below 15. */
    scryptLogN: Config.integer("SCRYPT_LOG_N").pipe(Config.withDefault(15), Config.map((n) => Math.max(15, n))),
    /** Login attempts allowed per account and per IP within `loginWindowSeconds` (429 beyond). */
    loginMaxPerAccount: Config.integer("LOGIN_MAX_PER_ACCOUNT").pipe(Config.withDefault(10)),
    loginMaxPerIp: Config.integer("LOGIN_MAX_PER_IP").pipe(Config.withDefault(50)),
    loginWindowSeconds: Config.integer("LOGIN_WINDOW_SECONDS").pipe(Config.withDefault(900)),
    /** Account e-mails (reset, magic link, verification, "account exists") per address per hour. */
    mailsPerAddressPerHour: Config.integer("AUTH_MAILS_PER_HOUR").pipe(Config.withDefault(5))
  })
}) {}
