/**
 * Tokens stored as unknown (symbol() or decimals() reverted, or answered something unusable) are read again with
 * back-off until they resolve or are confirmed non-standard. The first re-read is TOKEN_REREAD_FIRST_SECONDS (5 min)
 * after the token was stored. Each failed re-read makes the next delay four times longer (20 min, 80 min, and so on),
 * capped at 7 days. After MAX_REREADS failed re-reads, the token is confirmed non-standard and not read again.
 * A node failure (retryable RPC error) is not a failed read: the token stays due.
 *
 * A resolved token is stored with source 'chain', and the records already stored of it get its symbol, decimals and
 * scaled amount in the same transaction. The change is logged: it never happens silently. A token known before
 * (seed, chain) is never re-read or changed here.
 */
import { Effect, Either } from "effect"
import type { TokenCache } from "./Ingest"
import { ChainRepo, TOKEN_REREAD_FIRST_SECONDS } from "./Repo"
import { UNKNOWN_TOKEN, type ChainSourceShape } from "./Source"

/** Failed re-reads before a token is confirmed non-standard. */
export const MAX_REREADS = 8
const BASE_MS = TOKEN_REREAD_FIRST_SECONDS * 1000
const CAP_MS = 7 * 24 * 3_600_000
/** Tokens read per pass. */
const PER_PASS = 20

/** When to read again after `attempts` failed re-reads (the first re-read came BASE_MS after the token was stored). */
export const nextReadDelayMs = (attempts: number) => Math.min(CAP_MS, BASE_MS * 4 ** Math.max(0, attempts))

/** One pass over the unknown tokens that are due. Never fails; the counts are for logs and tests. */
export const rereadUnknownTokens = (source: ChainSourceShape, tokens: TokenCache) =>
  Effect.gen(function* () {
    const repo = yield* ChainRepo
    let resolved = 0
    let deferred = 0
    for (const due of yield* repo.unknownTokensDue(PER_PASS)) {
      const read = yield* Effect.either(source.readTokenMeta(due.address))
      if (Either.isLeft(read)) {
        if (read.left.retryable) break // the node is struggling: try the rest at the next pass
        continue
      }
      const { symbol, decimals } = read.right
      const attempts = due.read_attempts + 1
      if (decimals !== null && symbol !== UNKNOWN_TOKEN.symbol) {
        const records = yield* repo.resolveUnknownToken(due.address, symbol, decimals)
        if (records === null) continue
        tokens.resolved({ address: due.address, symbol, decimals, stable: false, eth_derivative: false, blacklisted: false })
        resolved++
        yield* Effect.logInfo(`token ${due.address} resolved on re-read ${attempts}: ${symbol} (${decimals} decimals); ${records} stored record(s) updated`)
      } else {
        const next = attempts >= MAX_REREADS ? null : new Date(Date.now() + nextReadDelayMs(attempts))
        yield* repo.deferUnknownToken(due.address, attempts, next)
        deferred++
        if (next === null) yield* Effect.logInfo(`token ${due.address} confirmed non-standard after ${attempts} failed re-reads; not read again`)
      }
    }
    return { resolved, deferred }
  })
