/** API keys (spec §2.3, §4.3): created by whale-tier users, listed by prefix, revoked by prefix. */
import { z } from "zod"
import { endpoint } from "./endpoint"

/** `whk_live_` + 32 base62 characters: recognisable by secret scanners. */
export const API_KEY_PATTERN = /^whk_live_[0-9A-Za-z]{32}$/
export const API_KEY_PREFIX_LENGTH = 12
export const MAX_ACTIVE_KEYS = 10

export const CreateKeyRequest = z.object({
  name: z.string().trim().min(1).max(64).optional().default("API key")
})
export type CreateKeyRequest = z.infer<typeof CreateKeyRequest>

export const ApiKeyInfo = z.object({
  prefix: z.string(),
  name: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable()
})
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>

/** The only answer that ever carries the full key. */
export const CreateKeyResponse = ApiKeyInfo.extend({
  key: z.string(),
  warning: z.string()
})
export type CreateKeyResponse = z.infer<typeof CreateKeyResponse>

export const ListKeysResponse = z.object({
  keys: z.array(ApiKeyInfo),
  max_active: z.number().int()
})
export type ListKeysResponse = z.infer<typeof ListKeysResponse>

export const RevokeKeyRequest = z.object({
  prefix: z.string().trim().length(API_KEY_PREFIX_LENGTH)
})
export type RevokeKeyRequest = z.infer<typeof RevokeKeyRequest>

export const RevokeKeyResponse = z.object({ revoked: z.literal(true), prefix: z.string() })

const tags = ["api-keys"]

export const ApiKeyEndpoints = {
  create: endpoint({
    method: "POST", path: "/api/keys/create", summary: "Create an API key (whale tier); the full key is returned only here", tags,
    body: CreateKeyRequest, response: CreateKeyResponse
  }),
  list: endpoint({
    method: "GET", path: "/api/keys", summary: "The caller's active API keys: prefix, name, created, last used (never the key)", tags, response: ListKeysResponse
  }),
  revoke: endpoint({
    method: "POST", path: "/api/keys/revoke", summary: "Revoke one of the caller's keys by its prefix (first 12 characters)", tags,
    body: RevokeKeyRequest, response: RevokeKeyResponse
  })
}
