/** Accounts and sessions: registration, sign-in, mailed links, tiers (entitlements), and the platform's Principals. */
import { Effect, Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { Principals } from "../../platform/http/Principals"
import { Accounts } from "./Accounts"
import { AccountsConfig } from "./Config"
import { Entitlements } from "./Entitlements"
import { AccountsErrors } from "./Errors"
import { AuthGuards } from "./Guards"
import { AuthRoutes } from "./Http"
import { AccountLinks } from "./Links"
import { Sessions } from "./Sessions"

/** The platform asks the accounts domain who a session token names, and who is an administrator. */
const PrincipalsLive = Layer.effect(
  Principals,
  Effect.map(AuthGuards, (guards) => ({ resolveToken: guards.resolveToken, admin: guards.admin }))
).pipe(Layer.provide(AuthGuards.Default))

export const AccountsModule = defineModule({
  name: "accounts",
  config: AccountsConfig.Default,
  layer: Layer.mergeAll(AccountsConfig.Default, Entitlements.Default, Sessions.Default, AuthGuards.Default, Accounts.Default, AccountLinks.Default, PrincipalsLive),
  routes: AuthRoutes,
  errors: AccountsErrors,
  tokenKinds: ["session", "magic_login", "verify_email", "activate_trial", "password_reset"]
})
