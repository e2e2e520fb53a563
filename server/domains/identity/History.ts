/**
 * An address's identity history as the wallet page and the keyed wallet answer show it (issue 28 parts 1 and 6): the
 * class changes the engine recorded (seed data, a label file, a behaviour rule; wallet_identity_history) merged with
 * the operators' corrections (wallet_identity_corrections), newest first. A class set by a correction is recorded in
 * both tables; it is shown once, as the correction (with the operator's reason, and the class before it from the
 * history row). Who made a correction is not shown.
 */
import type { HistoryRow, StoredCorrection } from "./Repo"

export interface HistoryEntry {
  readonly at: Date
  readonly field: "class" | "label"
  readonly action: "set" | "unset"
  readonly value: string | null
  readonly previous: string | null
  readonly source: string | null
  readonly reason: string | null
  readonly confidence: number | null
  readonly block: number | null
  readonly correction: boolean
}

/** How far apart (ms) a correction and the history row its re-resolution wrote may be and still be matched. */
const MATCH_MS = 60_000

export const identityHistory = (rows: ReadonlyArray<HistoryRow>, corrections: ReadonlyArray<StoredCorrection>, limit = 50): Array<HistoryEntry> => {
  const time = (d: Date | string | undefined) => (d === undefined ? 0 : new Date(d).getTime())
  const operatorRows = rows.filter((r) => r.source === "operator")
  const used = new Set<HistoryRow>()
  const fromCorrections = corrections.map((c): HistoryEntry => {
    // The row the correction's re-resolution wrote: the first operator row for this class at or after it.
    const row = c.field === "class" && c.action === "set"
      ? operatorRows.find((r) => !used.has(r) && r.class === c.value && time(r.changed_at) >= time(c.created_at) - MATCH_MS)
      : undefined
    if (row !== undefined) used.add(row)
    return {
      at: new Date(c.created_at), field: c.field, action: c.action, value: c.value, previous: row?.previous_class ?? null, source: "operator",
      reason: c.reason, confidence: row?.confidence ?? null, block: null, correction: true
    }
  })
  const fromRows = rows.filter((r) => !used.has(r)).map((r): HistoryEntry => ({
    at: new Date(r.changed_at ?? 0), field: "class", action: "set", value: r.class, previous: r.previous_class, source: r.source,
    reason: r.reason, confidence: r.confidence, block: r.block === null ? null : Number(r.block), correction: r.source === "operator"
  }))
  return [...fromRows, ...fromCorrections].sort((a, b) => b.at.getTime() - a.at.getTime()).slice(0, limit)
}
