/**
 * Sessions: a login creates a session row (a refresh-token family) and returns a short-lived session JWT naming it
 * (`sid`) plus an opaque refresh token, stored only as its sha256. Refreshing rotates the refresh token; presenting
 * an already-rotated one is treated as theft and revokes the whole family. Logout and password changes revoke rows,
 * and the guards check the row on every request, so a revoked session stops working at once.
 */
import { createHash, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Jwt, TokenRejected } from "../../platform/infra/Jwt"
import { AccountsConfig } from "./Config"
import { RefreshRejected } from "./Errors"
import { SessionRepo } from "./SessionRepo"

export interface ClientMeta {
  readonly ip: string | null
  readonly userAgent: string | null
}

export interface IssuedSession {
  readonly userId: number
  readonly sessionId: string
  readonly accessToken: string
  readonly expiresIn: number
  readonly refreshToken: string
}

export const hashRefreshToken = (raw: string) => createHash("sha256").update(raw, "utf8").digest("hex")

export class Sessions extends Effect.Service<Sessions>()("app/Sessions", {
  dependencies: [SessionRepo.Default, Jwt.Default, AccountsConfig.Default],
  effect: Effect.gen(function* () {
    const repo = yield* SessionRepo
    const jwt = yield* Jwt
    const sql = yield* SqlClient.SqlClient
    const { sessionTtlSeconds, refreshTtlSeconds } = yield* AccountsConfig
    const expiry = () => new Date(Date.now() + refreshTtlSeconds * 1000)

    const accessToken = (userId: number, sessionId: string) =>
      jwt.sign("session", { sub: String(userId), ttlSeconds: sessionTtlSeconds, claims: { sid: sessionId } }).pipe(Effect.map((t) => t.token))

    const newRefreshToken = (sessionId: string) =>
      Effect.gen(function* () {
        const raw = randomBytes(32).toString("base64url")
        yield* repo.addRefreshToken(hashRefreshToken(raw), sessionId)
        return raw
      })

    const issue = Effect.fn("Sessions.issue")(function* (userId: number, meta: ClientMeta) {
      const sessionId = randomBytes(18).toString("base64url")
      const refreshToken = yield* sql.withTransaction(
        repo.create({ id: sessionId, userId, expiresAt: expiry(), ip: meta.ip, userAgent: meta.userAgent?.slice(0, 300) ?? null }).pipe(
          Effect.zipRight(newRefreshToken(sessionId))
        )
      ).pipe(Effect.orDie)
      return { userId, sessionId, accessToken: yield* accessToken(userId, sessionId), expiresIn: sessionTtlSeconds, refreshToken } satisfies IssuedSession
    })

    const refresh = Effect.fn("Sessions.refresh")(function* (raw: string) {
      const hash = hashRefreshToken(raw)
      const found = yield* repo.findRefreshToken(hash)
      if (!found) return yield* Effect.fail(new RefreshRejected({ reason: "invalid" }))
      const reused = () =>
        repo.revoke(found.session_id, "refresh_token_reuse").pipe(
          Effect.zipRight(Effect.logWarning("refresh token reused: session family revoked").pipe(Effect.annotateLogs({ user: found.user_id }))),
          Effect.zipRight(Effect.fail(new RefreshRejected({ reason: "reused" })))
        )
      if (found.rotated_at !== null) return yield* reused()
      if (found.revoked_at !== null || found.expires_at.getTime() <= Date.now()) {
        return yield* Effect.fail(new RefreshRejected({ reason: "revoked" }))
      }
      const outcome = yield* sql.withTransaction(
        Effect.gen(function* () {
          if (!(yield* repo.rotate(hash))) return "reused" as const
          if (!(yield* repo.extend(found.session_id, expiry()))) return "revoked" as const
          return yield* newRefreshToken(found.session_id)
        })
      ).pipe(Effect.orDie)
      if (outcome === "reused") return yield* reused()
      if (outcome === "revoked") return yield* Effect.fail(new RefreshRejected({ reason: "revoked" }))
      return {
        userId: found.user_id,
        sessionId: found.session_id,
        accessToken: yield* accessToken(found.user_id, found.session_id),
        expiresIn: sessionTtlSeconds,
        refreshToken: outcome
      } satisfies IssuedSession
    })

    /** The session a refresh token belongs to (logout with only the refresh cookie). */
    const sessionOfRefreshToken = Effect.fn("Sessions.sessionOfRefreshToken")(function* (raw: string) {
      const found = yield* repo.findRefreshToken(hashRefreshToken(raw))
      return found?.session_id
    })

    /** Verifies a session JWT (signature, kind, expiry) and returns who and which session it names. */
    const decode = Effect.fn("Sessions.decode")(function* (token: string) {
      const verified = yield* jwt.verify("session", token)
      const userId = Number(verified.sub)
      const sessionId = verified.claims.sid
      if (!Number.isSafeInteger(userId) || userId <= 0 || typeof sessionId !== "string") {
        return yield* Effect.fail(new TokenRejected({ kind: "session", reason: "invalid" }))
      }
      return { userId, sessionId }
    })

    return {
      issue,
      refresh,
      decode,
      sessionOfRefreshToken,
      revoke: Effect.fn("Sessions.revoke")(function* (sessionId: string, reason: string) {
        yield* repo.revoke(sessionId, reason)
      }),
      /** The user's live sessions for the account page; `current` is the one the request came with. */
      listOf: Effect.fn("Sessions.listOf")(function* (userId: number, currentSessionId: string | undefined) {
        const rows = yield* repo.activeOf(userId)
        return rows.map((r) => ({
          id: r.id, created_at: r.created_at.toISOString(), last_used_at: r.last_used_at.toISOString(), expires_at: r.expires_at.toISOString(),
          ip: r.ip, user_agent: r.user_agent, current: r.id === currentSessionId
        }))
      }),
      /** Signs one of the user's sessions out: false when it is not theirs (the caller answers 404, as for a missing one). */
      revokeOwn: Effect.fn("Sessions.revokeOwn")(function* (userId: number, sessionId: string) {
        return yield* repo.revokeOwn(userId, sessionId, "signed_out_from_account_page")
      }),
      revokeAll: Effect.fn("Sessions.revokeAll")(function* (userId: number, reason: string) {
        return yield* repo.revokeAllOf(userId, reason)
      }),
      /** Housekeeping: sessions ended over a week ago, refresh tokens rotated over a week ago. */
      prune: Effect.fn("Sessions.prune")(function* () {
        return { sessions: yield* repo.prune(7), refreshTokens: yield* repo.pruneRotated(7) }
      })
    } as const
  })
}) {}
