/**
 * Operator commands behind `npm run admin` (server/cli/admin.ts): create a user, set a tier (an operator grant,
 * never a fake subscription), list users. Inputs are checked with the same schemas as the HTTP API.
 */
import { Data, Effect } from "effect"
import { z } from "zod"
import { NewPassword } from "../../../schema/http/auth"
import { email as Email } from "../../../schema/common"
import { Tier } from "../../../schema/tiers"
import { validateSync } from "../../platform/http/Validate"
import { AccountsConfig } from "./Config"
import { Entitlements } from "./Entitlements"
import { AccountExists, AccountNotFound } from "./Errors"
import { hashPassword } from "./Passwords"
import { AccountsRepo } from "./Repo"

/** Any tier but `anon` (which is the absence of an account). */
export const GrantableTier = Tier.exclude(["anon"])

/** Arguments that do not pass the schemas; the message names each problem. */
export class InvalidInput extends Data.TaggedError("InvalidInput")<{ readonly message: string }> {}

const parse = <S extends z.ZodType>(schema: S, value: unknown): Effect.Effect<z.output<S>, InvalidInput> => {
  const result = validateSync("body", schema, value)
  return result.ok
    ? Effect.succeed(result.value)
    : Effect.fail(new InvalidInput({ message: result.issues.map((i) => `${i.loc.slice(1).join(".")}: ${i.msg}`).join("; ") }))
}

const CreateUser = z.object({ email: Email, password: NewPassword, tier: GrantableTier.optional(), admin: z.boolean().default(false) })
const SetTier = z.object({ email: Email, tier: GrantableTier })

export const createUser = (input: { email?: string; password?: string; tier?: string; admin?: boolean }) =>
  Effect.gen(function* () {
    const args = yield* parse(CreateUser, input)
    const { scryptLogN } = yield* AccountsConfig
    const repo = yield* AccountsRepo
    const entitlements = yield* Entitlements
    const passwordHash = yield* hashPassword(args.password, scryptLogN)
    // An operator vouches for the address: the account starts verified.
    const id = yield* repo.insert({ email: args.email, passwordHash, displayName: null, verified: true, admin: args.admin })
    if (id === undefined) return yield* Effect.fail(new AccountExists({ email: args.email }))
    if (args.tier && args.tier !== "free") yield* entitlements.setGrant(id, args.tier, "cli", "create-user")
    return { id, email: args.email, admin: args.admin, tier: yield* entitlements.tierOf(id) }
  })

export const setTier = (input: { email?: string; tier?: string }) =>
  Effect.gen(function* () {
    const args = yield* parse(SetTier, input)
    const repo = yield* AccountsRepo
    const entitlements = yield* Entitlements
    const user = yield* repo.byEmail(args.email)
    if (!user) return yield* Effect.fail(new AccountNotFound({ email: args.email }))
    yield* entitlements.setGrant(user.id, args.tier, "cli", "set-tier")
    return { id: user.id, email: user.email, granted: args.tier, tier: yield* entitlements.tierOf(user.id) }
  })

export const listUsers = (limit = 1000) =>
  Effect.gen(function* () {
    const repo = yield* AccountsRepo
    const entitlements = yield* Entitlements
    const rows = yield* repo.list(limit)
    return yield* Effect.forEach(rows, (u) =>
      entitlements.tierOf(u.id).pipe(
        Effect.map((tier) => ({
          id: u.id,
          email: u.email,
          tier,
          admin: u.is_admin,
          verified: u.email_verified_at !== null,
          account_type: u.account_type,
          created_at: u.created_at.toISOString()
        }))
      )
    )
  })

/** Plain-text table of `listUsers`. */
export const formatUsers = (users: ReadonlyArray<Record<string, unknown>>) => {
  if (users.length === 0) return "(no users)"
  const columns = Object.keys(users[0]!)
  const cells = [columns, ...users.map((u) => columns.map((c) => String(u[c])))]
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)))
  return cells.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n")
}
