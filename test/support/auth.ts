/**
 * Account helpers for integration tests of any domain: create users the way the operator command does (verified,
 * optional tier grant and admin role), sign in over HTTP, and build credential headers.
 */
import { Effect, Layer, type ManagedRuntime } from "effect"
import { createUser as createUserCommand, setTier as setTierCommand } from "../../server/domains/accounts/AdminCommands"
import { AccountsConfig } from "../../server/domains/accounts/Config"
import { Entitlements } from "../../server/domains/accounts/Entitlements"
import { AccountsRepo } from "../../server/domains/accounts/Repo"
import type { TestApp } from "./harness"
import type { TestPlatform } from "./serviceTest"

export const DEFAULT_PASSWORD = "correct horse battery staple"

/** A test app or a service test (`startServices`): the account commands need the platform only. */
type Runs = Pick<TestApp, "runtime"> | { readonly runtime: ManagedRuntime.ManagedRuntime<TestPlatform, unknown> }

/** What the operator commands use: stated here, so a service test without the accounts module can run them. */
const Accounts = Layer.mergeAll(Entitlements.Default, AccountsRepo.Default, AccountsConfig.Default)

const withAccounts = <A, E>(app: Runs, effect: Effect.Effect<A, E, Layer.Layer.Success<typeof Accounts> | TestPlatform>) =>
  (app.runtime as ManagedRuntime.ManagedRuntime<TestPlatform, unknown>).runPromise(Effect.provide(effect, Accounts))

/** A verified account (tier by operator grant when given). */
export const createUser = (app: Runs, opts: { email: string; password?: string; tier?: string; admin?: boolean }) =>
  withAccounts(app, createUserCommand({ email: opts.email, password: opts.password ?? DEFAULT_PASSWORD, tier: opts.tier, admin: opts.admin ?? false }))

export const setTier = (app: Runs, email: string, tier: string) => withAccounts(app, setTierCommand({ email, tier }))

export interface LoggedIn {
  readonly token: string
  readonly refreshToken: string
  /** The raw `Set-Cookie` values of the login answer. */
  readonly setCookies: ReadonlyArray<string>
  readonly body: Record<string, any>
}

export const login = async (app: TestApp, email: string, password = DEFAULT_PASSWORD, headers: Record<string, string> = {}): Promise<LoggedIn> => {
  const res = await fetch(`${app.url}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email, password })
  })
  const body = (await res.json()) as Record<string, any>
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(body)}`)
  return { token: body.access_token, refreshToken: body.refresh_token, setCookies: res.headers.getSetCookie(), body }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** A `Cookie` header carrying the given cookies (name → value). */
export const cookieHeader = (cookies: Record<string, string>) => ({
  cookie: Object.entries(cookies).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ")
})

/** name → value of the cookies set by an answer. */
export const cookiesOf = (setCookies: ReadonlyArray<string>) =>
  Object.fromEntries(setCookies.map((c) => {
    const [pair] = c.split(";")
    const i = pair!.indexOf("=")
    return [pair!.slice(0, i), decodeURIComponent(pair!.slice(i + 1))]
  }))
