/**
 * Who is asking: the port through which the platform learns the signed-in user of a session token, and the guard
 * that admits administrators. The platform (the WebSocket hub, the operators' restart route) depends on this tag
 * only; the accounts domain provides it (`server/domains/accounts/Module.ts`), so arrows keep pointing down.
 */
import { Context, type Effect } from "effect"
import type { Tier } from "../../../schema/tiers"
import type { AppError } from "./Errors"
import type { Guard } from "./Route"

/** The signed-in user as the platform sees one. */
export interface Principal {
  readonly id: number
  readonly tier: Tier
  readonly admin: boolean
}

export interface PrincipalsService {
  /** The user a raw session token names; `Unauthorized` (with its code: `token_expired`, `invalid_token`, …) otherwise. */
  readonly resolveToken: (token: string) => Effect.Effect<Principal, AppError>
  /** Admits administrators only (401 anonymous, 403 others). */
  readonly admin: Guard<Principal>
}

export class Principals extends Context.Tag("platform/Principals")<Principals, PrincipalsService>() {}

/** The cookie that carries a browser's session token. */
export const SESSION_COOKIE = "whale_token"

/** The value of one cookie in a raw `Cookie` header. */
export const cookieValue = (cookieHeader: string | undefined, name: string): string | undefined => {
  if (!cookieHeader) return undefined
  for (const part of cookieHeader.split(";")) {
    const i = part.indexOf("=")
    if (i > 0 && part.slice(0, i).trim() === name) {
      const value = part.slice(i + 1).trim()
      try {
        return decodeURIComponent(value)
      } catch {
        return value
      }
    }
  }
  return undefined
}
