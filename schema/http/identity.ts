/**
 * The admin console's wallet-identity endpoints (issue 28): operators' corrections (set or remove a class or a label,
 * always with a reason; the same service as `npm run wallets -- identity`) and whale discovery's queue (approve or
 * reject; `npm run wallets -- candidates`). Administrators only: 401 anonymous, 403 signed in without admin rights.
 */
import { z } from "zod"
import { endpoint } from "./endpoint"
import { IdentitySource, WalletClass, WalletKind } from "../identity"

const Address = z.string().trim().toLowerCase().regex(/^0x[0-9a-f]{40}$/, "not an address (0x and 40 hex digits)")

export const CorrectionRequest = z.object({
  address: Address,
  action: z.enum(["set", "unset"]),
  field: z.enum(["class", "label"]),
  /** set class: the class; set label: the label; unset class: the class ruled out (null: drop the operator's own). */
  value: z.string().trim().min(1).max(120).nullable().default(null),
  /** With `set class exchange` only: the exchange's name. */
  exchange: z.string().trim().min(1).max(80).nullable().default(null),
  reason: z.string().trim().min(1, "a correction needs a reason").max(500)
})
export type CorrectionRequest = z.infer<typeof CorrectionRequest>

export const StoredCorrection = z.object({
  id: z.number().int(),
  address: z.string(),
  action: z.enum(["set", "unset"]),
  field: z.enum(["class", "label"]),
  value: z.string().nullable(),
  exchange: z.string().nullable(),
  reason: z.string(),
  operator: z.string().nullable(),
  created_at: z.string()
})
export type StoredCorrection = z.infer<typeof StoredCorrection>

export const IdentitySummary = z.object({
  address: z.string(),
  kind: WalletKind,
  class: WalletClass,
  class_source: IdentitySource.nullable(),
  label: z.string().nullable(),
  label_source: IdentitySource.nullable(),
  exchange: z.string().nullable(),
  confidence: z.number(),
  reasons: z.array(z.string())
})
export type IdentitySummary = z.infer<typeof IdentitySummary>

export const CorrectionsQuery = z.object({
  address: Address.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100)
})
export const CorrectionsAnswer = z.object({ corrections: z.array(StoredCorrection) })
export const CorrectionAnswer = z.object({ correction: StoredCorrection, identity: IdentitySummary })

export const CandidateStatus = z.enum(["pending", "joined", "below", "rejected", "left"])
export const Candidate = z.object({
  address: z.string(),
  status: CandidateStatus,
  reason: z.string(),
  note: z.string().nullable(),
  move: z.object({ verb: z.string(), usd: z.number(), symbol: z.string(), block: z.number().int(), tx: z.string() }),
  holdings_usd: z.number().nullable(),
  holdings: z.array(z.object({ symbol: z.string(), units: z.number(), usd: z.number().nullable() })),
  cohort: z.enum(["mega", "large", "mid"]).nullable(),
  measured_at: z.string().nullable(),
  last_active_at: z.string(),
  first_seen_at: z.string(),
  decided_at: z.string().nullable(),
  decided_by: z.string().nullable()
})
export type Candidate = z.infer<typeof Candidate>

export const CandidatesQuery = z.object({
  status: CandidateStatus.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(200)
})
export const CandidatesAnswer = z.object({
  mode: z.enum(["auto", "review", "off"]),
  min_usd: z.number(),
  min_holdings_usd: z.number(),
  max_tracked: z.number().int(),
  candidates: z.array(Candidate)
})
export const CandidateParams = z.object({ address: Address })
export const RejectRequest = z.object({ reason: z.string().trim().min(1, "a rejection needs a reason").max(500) })

const tags = ["identity"]

export const IdentityEndpoints = {
  corrections: endpoint({
    method: "GET", path: "/api/admin/identity/corrections", summary: "Operators' corrections, newest first (administrators)", tags,
    query: CorrectionsQuery, response: CorrectionsAnswer
  }),
  correct: endpoint({
    method: "POST", path: "/api/admin/identity/corrections", summary: "Set or remove a class or a label, with a reason (administrators)", tags,
    body: CorrectionRequest, bodyKind: "json", response: CorrectionAnswer
  }),
  candidates: endpoint({
    method: "GET", path: "/api/admin/identity/candidates", summary: "Whale discovery's queue, pending first (administrators)", tags,
    query: CandidatesQuery, response: CandidatesAnswer
  }),
  approve: endpoint({
    method: "POST", path: "/api/admin/identity/candidates/{address}/approve", summary: "A candidate joins the tracked set (administrators)", tags,
    params: CandidateParams, response: Candidate
  }),
  reject: endpoint({
    method: "POST", path: "/api/admin/identity/candidates/{address}/reject", summary: "A candidate is never tracked (administrators)", tags,
    params: CandidateParams, body: RejectRequest, bodyKind: "json", response: Candidate
  })
}
