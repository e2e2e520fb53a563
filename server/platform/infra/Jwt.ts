/**
 * Signed tokens with `jose`: HS256 only (the algorithm is pinned, so `alg: none` and foreign algorithms fail),
 * issuer and audience checked, expiry required. Every token has a kind — session, or one of the one-time links —
 * carried in the `kind` claim and in the audience (`whale:<kind>`), and signed with a key derived for that kind
 * from SESSION_SECRET (HKDF): a token of one kind can never pass as another, even if a check were forgotten.
 *
 * Single use: `consume` records a link's `jti` in `used_tokens`; a second use fails. Call it inside the
 * transaction that acts on the link, so the link is spent exactly when the action commits.
 */
import { hkdfSync, randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Data, Effect, Redacted } from "effect"
import { errors, jwtVerify, SignJWT } from "jose"
import { AppConfig } from "../Config"
import { BadRequest, errorMap } from "../http/Errors"

/** A token kind (`session`, `verify_email`, …): the modules declare the kinds they mint (`Module.tokenKinds`). */
export type TokenKind = string

export const ISSUER = "whale-intelligence"
export const audienceOf = (kind: TokenKind) => `whale:${kind}`
export const ALGORITHM = "HS256"
const MAX_TOKEN_LENGTH = 4096
const CLOCK_TOLERANCE_SECONDS = 5

/** The signing key of one token kind (exported so tests can mint tokens exactly as the app does). */
export const deriveKey = (secret: string, kind: TokenKind): Uint8Array =>
  new Uint8Array(hkdfSync("sha256", Buffer.from(secret, "utf8"), "whale-jwt-v1", `kind:${kind}`, 32))

/** Why a token was refused. `invalid` covers forged, malformed, wrong kind, wrong algorithm and wrong issuer. */
export type TokenProblem = "invalid" | "expired" | "used"

export class TokenRejected extends Data.TaggedError("TokenRejected")<{ readonly kind: TokenKind; readonly reason: TokenProblem }> {}

const TOKEN_MESSAGES = {
  invalid: "This link is not valid",
  expired: "This link has expired; ask for a new one",
  used: "This link was already used"
} as const satisfies Record<TokenProblem, string>

/** A refused link answers 400 with `token_invalid`, `token_expired` or `token_used`. */
export const TokenErrors = errorMap<TokenRejected>()({
  TokenRejected: (e) => new BadRequest({ message: TOKEN_MESSAGES[e.reason], code: `token_${e.reason}` })
})

export interface VerifiedToken {
  readonly kind: TokenKind
  readonly sub: string
  readonly jti: string
  readonly expiresAt: Date
  /** Every claim of the payload (custom ones included). */
  readonly claims: Readonly<Record<string, unknown>>
}

export interface SignOptions {
  readonly sub: string
  readonly ttlSeconds: number
  /** Extra claims; reserved names (iss, aud, sub, exp, iat, jti, kind) are ignored. */
  readonly claims?: Readonly<Record<string, string | number | boolean | null>>
}

const RESERVED = new Set(["iss", "aud", "sub", "exp", "iat", "nbf", "jti", "kind"])

export class Jwt extends Effect.Service<Jwt>()("app/Jwt", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    const secret = Redacted.value(config.sessionSecret)
    const keys = new Map<TokenKind, Uint8Array>()
    /** The key of a kind, derived on first use. */
    const keyOf = (kind: TokenKind) => {
      let key = keys.get(kind)
      if (!key) keys.set(kind, (key = deriveKey(secret, kind)))
      return key
    }

    const sign = Effect.fn("Jwt.sign")(function* (kind: TokenKind, options: SignOptions) {
      const jti = randomBytes(16).toString("base64url")
      const now = Math.floor(Date.now() / 1000)
      const exp = now + Math.max(1, Math.floor(options.ttlSeconds))
      const extra = Object.fromEntries(Object.entries(options.claims ?? {}).filter(([k]) => !RESERVED.has(k)))
      const token = yield* Effect.promise(() =>
        new SignJWT({ ...extra, kind })
          .setProtectedHeader({ alg: ALGORITHM, typ: "JWT" })
          .setIssuer(ISSUER)
          .setAudience(audienceOf(kind))
          .setSubject(options.sub)
          .setJti(jti)
          .setIssuedAt(now)
          .setExpirationTime(exp)
          .sign(keyOf(kind))
      )
      return { token, jti, expiresAt: new Date(exp * 1000) }
    })

    const verify = Effect.fn("Jwt.verify")(function* (kind: TokenKind, token: string) {
      const reject = (reason: TokenProblem) => Effect.fail(new TokenRejected({ kind, reason }))
      if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return yield* reject("invalid")
      const result = yield* Effect.tryPromise({
        try: () =>
          jwtVerify(token, keyOf(kind), {
            algorithms: [ALGORITHM],
            issuer: ISSUER,
            audience: audienceOf(kind),
            requiredClaims: ["sub", "jti", "exp", "iat"],
            clockTolerance: CLOCK_TOLERANCE_SECONDS
          }),
        catch: (e) => new TokenRejected({ kind, reason: e instanceof errors.JWTExpired ? "expired" : "invalid" })
      })
      const { payload } = result
      if (payload.kind !== kind || typeof payload.sub !== "string" || typeof payload.jti !== "string" || typeof payload.exp !== "number") {
        return yield* reject("invalid")
      }
      return {
        kind,
        sub: payload.sub,
        jti: payload.jti,
        expiresAt: new Date(payload.exp * 1000),
        claims: payload as Record<string, unknown>
      } satisfies VerifiedToken
    })

    /** Spends a one-time token; fails with `used` if it was spent before. Runs in the caller's transaction. */
    const consume = Effect.fn("Jwt.consume")(function* (token: VerifiedToken, userId?: number) {
      const rows = yield* sql<{ jti: string }>`
        INSERT INTO used_tokens (jti, kind, user_id, expires_at)
        VALUES (${token.jti}, ${token.kind}, ${userId ?? null}, ${token.expiresAt})
        ON CONFLICT (jti) DO NOTHING RETURNING jti`.pipe(Effect.orDie)
      if (rows.length === 0) return yield* Effect.fail(new TokenRejected({ kind: token.kind, reason: "used" }))
    })

    /** Whether a one-time token was already spent (a read; `consume` is the authority). */
    const isUsed = Effect.fn("Jwt.isUsed")(function* (token: VerifiedToken) {
      const rows = yield* sql<{ jti: string }>`SELECT jti FROM used_tokens WHERE jti = ${token.jti}`.pipe(Effect.orDie)
      return rows.length > 0
    })

    /** Forgets spent tokens that have expired anyway (they can no longer verify). */
    const pruneUsed = Effect.fn("Jwt.pruneUsed")(function* () {
      const rows = yield* sql<{ jti: string }>`
        DELETE FROM used_tokens WHERE expires_at < now() - interval '1 minute' RETURNING jti`.pipe(Effect.orDie)
      return rows.length
    })

    return { sign, verify, consume, isUsed, pruneUsed } as const
  })
}) {}
