/**
 * Password hashing with scrypt (node:crypto): N = 2^logN (at least 2^15), r = 8, p = 1, a 16-byte salt, a 32-byte
 * key. Stored as `scrypt$<logN>$<r>$<p>$<salt>$<hash>` (base64url), so the cost can rise later: a login on an older
 * hash re-hashes it (`needsRehash`). Comparison is constant-time. `verifyDummy` costs the same as a real check and
 * is used for unknown accounts, so timing does not reveal whether an e-mail is registered.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"

const R = 8
const P = 1
const KEY_LENGTH = 32
const SALT_LENGTH = 16

const maxmem = (logN: number, r: number) => 2 * 128 * 2 ** logN * r + 1024 * 1024

const derive = (password: string, salt: Buffer, logN: number, r: number, p: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: 2 ** logN, r, p, maxmem: maxmem(logN, r) }, (err, key) => {
      // Parameters are ours and valid; a failure here is a defect.
      resume(err ? Effect.die(err) : Effect.succeed(key))
    })
  })

interface Parsed {
  readonly logN: number
  readonly r: number
  readonly p: number
  readonly salt: Buffer
  readonly hash: Buffer
}

const parse = (stored: string): Parsed | undefined => {
  const parts = stored.split("$")
  if (parts.length !== 6 || parts[0] !== "scrypt") return undefined
  const [logN, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 22 || r < 1 || r > 32 || p < 1 || p > 16) return undefined
  const salt = Buffer.from(parts[4]!, "base64url")
  const hash = Buffer.from(parts[5]!, "base64url")
  return hash.length === KEY_LENGTH && salt.length >= 8 ? { logN, r, p, salt, hash } : undefined
}

export const hashPassword = (password: string, logN: number) =>
  Effect.gen(function* () {
    const salt = randomBytes(SALT_LENGTH)
    const key = yield* derive(password, salt, logN, R, P)
    return `scrypt$${logN}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`
  })

/** Whether `password` matches `stored`; a malformed hash never matches. */
export const verifyPassword = (password: string, stored: string) =>
  Effect.gen(function* () {
    const parsed = parse(stored)
    if (!parsed) return false
    const key = yield* derive(password, parsed.salt, parsed.logN, parsed.r, parsed.p)
    return timingSafeEqual(key, parsed.hash)
  })

/** Spends the time of one verification at cost `logN` and answers false. */
export const verifyDummy = (password: string, logN: number) =>
  derive(password, Buffer.alloc(SALT_LENGTH, 7), logN, R, P).pipe(Effect.as(false))

/** A hash made with a lower cost than today's setting. */
export const needsRehash = (stored: string, logN: number) => {
  const parsed = parse(stored)
  return !parsed || parsed.logN < logN || parsed.r !== R || parsed.p !== P
}
