/** Wire contracts of the account and session endpoints (spec §4.1). Bodies accept JSON and form encoding. */
import { z } from "zod"
import { email } from "../common"
import { Tier } from "../tiers"
import { endpoint } from "./endpoint"

export const PASSWORD_MIN_LENGTH = 10
export const PASSWORD_MAX_LENGTH = 256

/** A new password: long enough to resist guessing, short enough that hashing it is never a denial of service. */
export const NewPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH)

/** A password being checked (login, current password): any length the hash accepts. */
const GivenPassword = z.string().min(1).max(PASSWORD_MAX_LENGTH)

/** A one-time link token as it arrives in a query or body. */
const LinkToken = z.string().max(4096)

const DisplayName = z
  .string()
  .trim()
  .max(80)
  .regex(/^[^\p{Cc}]*$/u, "Display name must not contain control characters")

/** `true`, `"true"`, `"1"` (forms send strings). */
const flag = z.union([z.boolean(), z.enum(["true", "false", "1", "0", "on"]).transform((v) => v === "true" || v === "1" || v === "on")])

export const RegisterRequest = z.object({
  email,
  password: NewPassword,
  display_name: DisplayName.optional()
})
export type RegisterRequest = z.infer<typeof RegisterRequest>

export const LoginRequest = z.object({ email, password: GivenPassword })
export type LoginRequest = z.infer<typeof LoginRequest>

/** The refresh token comes from the `whale_refresh` cookie or this body. */
export const RefreshRequest = z.object({ refresh_token: z.string().max(256).optional() })

export const LogoutRequest = z.object({
  refresh_token: z.string().max(256).optional(),
  /** End every session of the account, not only this one. */
  everywhere: flag.optional()
})

export const ProfileRequest = z.object({
  /** An empty name clears it. */
  display_name: DisplayName.nullable()
})

export const AccountTypeRequest = z
  .object({
    account_type: z.enum(["personal", "business"]),
    company_name: z.string().trim().min(1).max(200).optional(),
    vat_id: z.string().trim().max(40).optional(),
    address: z.string().trim().max(500).optional(),
    /** ISO 3166-1 alpha-2. */
    country: z.string().trim().regex(/^[A-Za-z]{2}$/, "country must be a two-letter ISO code").transform((c) => c.toUpperCase()).optional()
  })
  .refine((b) => b.account_type !== "business" || b.company_name !== undefined, {
    message: "Field required for a business account",
    path: ["company_name"]
  })
export type AccountTypeRequest = z.infer<typeof AccountTypeRequest>

export const PasswordChangeRequest = z.object({ current_password: GivenPassword, new_password: NewPassword })

export const EmailOnlyRequest = z.object({ email })

export const ResetPasswordRequest = z.object({ token: LinkToken.min(1), new_password: NewPassword })

export const TokenQuery = z.object({ token: LinkToken })

export const Company = z.object({
  name: z.string(),
  vat_id: z.string().nullable(),
  address: z.string().nullable(),
  country: z.string().nullable()
})

export const MeResponse = z.object({
  id: z.number().int(),
  email: z.string(),
  display_name: z.string().nullable(),
  tier: Tier,
  admin: z.boolean(),
  email_verified: z.boolean(),
  account_type: z.enum(["personal", "business"]),
  company: Company.nullable(),
  /** End of the running trial, if one is what gives the tier. */
  trial_ends_at: z.string().nullable(),
  /** Whether the one trial of the account was already used. */
  trial_used: z.boolean(),
  created_at: z.string()
})
export type MeResponse = z.infer<typeof MeResponse>

export const SessionResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("bearer"),
  /** Seconds until `access_token` expires; renew it with POST /auth/refresh. */
  expires_in: z.number().int(),
  refresh_token: z.string(),
  user: MeResponse
})
export type SessionResponse = z.infer<typeof SessionResponse>

export const TierResponse = z.object({ tier: Tier })

export const OkResponse = z.object({ ok: z.literal(true), message: z.string() })

export const TrialResponse = z.object({ ok: z.literal(true), tier: Tier, trial_ends_at: z.string() })

// ------------------------------------------------------------------------------------------------------------
// Endpoints

/** The reset-password page: with a mailed token, the new-password form; without, the forgot-password form. */
export const ResetPageQuery = z.object({ token: LinkToken.optional() })

/** A signed-in session of the account (a login and its refreshes), for the account page. */
export const SessionInfo = z.object({
  id: z.string(),
  created_at: z.string(),
  last_used_at: z.string(),
  expires_at: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  /** The session this request came with. */
  current: z.boolean()
})
export type SessionInfo = z.infer<typeof SessionInfo>
export const SessionsResponse = z.object({ sessions: z.array(SessionInfo) })
export const SessionParams = z.object({ session_id: z.string().min(8).max(100) })
export const RevokeSessionResponse = z.object({ revoked: z.literal(true), id: z.string(), current: z.boolean() })

const tags = ["auth"]

export const AuthEndpoints = {
  sessions: endpoint({ method: "GET", path: "/auth/sessions", summary: "The account's active sessions (newest use first); `current` marks this one", tags, response: SessionsResponse }),
  revokeSession: endpoint({
    method: "POST", path: "/auth/sessions/{session_id}/revoke", summary: "Sign one of the account's sessions out (another account's id: 404)", tags,
    params: SessionParams, response: RevokeSessionResponse
  }),
  register: endpoint({
    method: "POST", path: "/auth/register", summary: "Create an account and mail its verification link (same answer for a taken address)", tags,
    body: RegisterRequest, response: OkResponse
  }),
  login: endpoint({ method: "POST", path: "/auth/login", summary: "Sign in; returns a session token and sets the whale_token cookie", tags, body: LoginRequest, response: SessionResponse }),
  refresh: endpoint({
    method: "POST", path: "/auth/refresh", summary: "New session token from a refresh token (whale_refresh cookie or body); rotates it", tags,
    body: RefreshRequest, response: SessionResponse
  }),
  logout: endpoint({
    method: "POST", path: "/auth/logout", summary: "End this session (or every session with everywhere=true); clears the cookies; always 200", tags,
    body: LogoutRequest, response: OkResponse
  }),
  tier: endpoint({ method: "GET", path: "/auth/tier", summary: "The caller's tier, or anon; always 200, never reveals who the caller is", tags, response: TierResponse }),
  me: endpoint({ method: "GET", path: "/auth/me", summary: "The signed-in account", tags, response: MeResponse }),
  profile: endpoint({ method: "POST", path: "/auth/profile", summary: "Update the display name (empty clears it)", tags, body: ProfileRequest, response: MeResponse }),
  accountType: endpoint({
    method: "POST", path: "/auth/account-type",
    summary: "Switch to a business account or update its company details; never business → personal; touches no tier or billing data", tags,
    body: AccountTypeRequest, response: MeResponse
  }),
  password: endpoint({
    method: "POST", path: "/auth/password", summary: "Change the password; ends every session and opens a fresh one for the caller", tags,
    body: PasswordChangeRequest, response: SessionResponse
  }),
  resendVerification: endpoint({
    method: "POST", path: "/auth/resend-verification", summary: "Mail a new verification link to the signed-in, unverified account", tags, response: OkResponse
  }),
  verifyEmail: endpoint({
    method: "GET", path: "/auth/verify-email", summary: "Verify the e-mail address with the mailed link (a page for a browser)", tags,
    query: TokenQuery, response: OkResponse
  }),
  forgotPassword: endpoint({
    method: "POST", path: "/auth/forgot-password", summary: "Mail a password reset link; always 200 with the same answer", tags,
    body: EmailOnlyRequest, response: OkResponse
  }),
  resetPasswordPage: endpoint({
    method: "GET", path: "/auth/reset-password", summary: "Page: the new-password form of a reset link (or the forgot-password form)", tags,
    query: ResetPageQuery, produces: "text/html"
  }),
  resetPassword: endpoint({
    method: "POST", path: "/auth/reset-password", summary: "Set a new password with the mailed token; ends every session", tags,
    body: ResetPasswordRequest, response: OkResponse
  }),
  magicLink: endpoint({
    method: "POST", path: "/auth/magic-link", summary: "Mail a one-time sign-in link; always 200 with the same answer", tags,
    body: EmailOnlyRequest, response: OkResponse
  }),
  magicLogin: endpoint({
    method: "GET", path: "/auth/magic-login",
    summary: "Sign in with a magic_login link: sets the session cookie and redirects to /, or to /login?error=<reason>", tags,
    query: TokenQuery, produces: "text/html"
  }),
  activateTrial: endpoint({
    method: "GET", path: "/auth/activate-trial", summary: "Start the 7-day Alpha trial of a verified free account (link valid 30 days)", tags,
    query: TokenQuery, response: TrialResponse
  })
}
