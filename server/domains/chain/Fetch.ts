/**
 * Fetching a block for storage: `ingestBlock`, retried for as long as it takes while the failure is temporary
 * (rate limits, 5xx, timeouts, network failures, or a reorg between reading the block and its logs), with capped
 * exponential back-off and jitter and a warning per failure. A block is never skipped: permanent failures and
 * `BlockNotFound` go to the caller.
 */
import { Duration, Effect, Schedule } from "effect"
import { ingestBlock, LogsMismatch, type IngestContext } from "./Ingest"
import { RpcError, type ChainSourceShape } from "./Source"

/** Exponential from `baseMs`, doubling, never longer than `maxMs`, jittered; forever. */
export const persistentRetry = (baseMs: number, maxMs: number): Schedule.Schedule<unknown, unknown> =>
  Schedule.exponential(Duration.millis(baseMs), 2).pipe(
    Schedule.union(Schedule.spaced(Duration.millis(maxMs))),
    Schedule.jittered
  )

const temporary = (e: unknown): boolean => (e instanceof RpcError && e.retryable) || e instanceof LogsMismatch

const describe = (e: unknown): string =>
  e instanceof RpcError
    ? `${e.method}: ${e.message}${e.status === undefined ? "" : ` (HTTP ${e.status})`}${e.code === undefined ? "" : ` (code ${e.code})`}`
    : e instanceof LogsMismatch ? `logs from block hash ${e.logsBlockHash}, block is ${e.blockHash}` : String(e)

/** Retries `effect` on temporary failures with `schedule`, logging each. */
export const retryTemporary = <A, E, R>(effect: Effect.Effect<A, E, R>, schedule: Schedule.Schedule<unknown, unknown>, what: string) =>
  effect.pipe(
    Effect.tapError((e) => (temporary(e) ? Effect.logWarning(`${what} failed, backing off: ${describe(e)}`) : Effect.void)),
    Effect.retry({ schedule, while: temporary })
  )

/** Block `n` decoded and priced, however many temporary failures it takes. */
export const fetchBlock = (source: ChainSourceShape, n: number, ctx: IngestContext, schedule: Schedule.Schedule<unknown, unknown>) =>
  retryTemporary(ingestBlock(source, n, ctx), schedule, `block ${n}`)
