/**
 * API key format: `whk_live_` + 32 base62 characters (190 bits), recognisable by secret scanners. Only the sha256
 * of a key is stored; its first 12 characters (`whk_live_` + 3) are the prefix shown in lists and used to revoke.
 */
import { hash, randomBytes } from "node:crypto"
import { API_KEY_PATTERN, API_KEY_PREFIX_LENGTH } from "../../../schema/http/apikeys"

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
export const KEY_PREFIX = "whk_live_"

/** 32 uniformly random base62 characters (rejection sampling: bytes ≥ 248 are dropped). */
const base62 = (length: number) => {
  let out = ""
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62]
    }
  }
  return out
}

export const generateKey = () => `${KEY_PREFIX}${base62(32)}`
export const hashKey = (key: string) => hash("sha256", key, "hex")
export const prefixOf = (key: string) => key.slice(0, API_KEY_PREFIX_LENGTH)
export const looksLikeKey = (s: string) => API_KEY_PATTERN.test(s)
