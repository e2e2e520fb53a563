/**
 * What the picks-grader handles: every message on `chain.tx` — a whale record, or the retraction of one after a
 * reorg (the shared contract of schema/streams.ts, decoded with `ChainStreamMessage`, branched on `isRetraction`).
 * Handlers are idempotent on the record (its unique key) and on the pick (one open pick per token, unique flag key).
 * Grading is driven by time, not by messages.
 */
export { ChainStreamMessage as PicksGraderMessage, isRetraction } from "../../schema/streams"
export type { ChainStreamMessage as PicksGraderMessageT } from "../../schema/streams"
