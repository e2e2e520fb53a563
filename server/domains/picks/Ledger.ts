/**
 * The picks ledger, pure: canonical JSON, the hash chain and its verification.
 *
 *   hash(entry) = sha256_hex(prev_hash + "\n" + payload)
 *   payload     = canonical JSON of {seq, at, kind, pick_id, data} (object keys sorted, no spaces, numbers as
 *                 JavaScript prints them, non-finite numbers as null)
 *   prev_hash   = the hash of the entry before (64 zeros for the first)
 *   daily root  = the hash of the last entry appended on that UTC day
 *
 * Each hash covers its predecessor, so a day's root commits to every entry up to it: deleting, reordering or
 * editing an earlier entry (a pick removed, a flag time moved back) changes every later hash and every later root.
 * Anyone who kept a root can check the published entries against it (see docs/domains/picks.md, and `verifyChain`).
 */
import { createHash } from "node:crypto"

export const GENESIS = "0".repeat(64)

export type LedgerKind = "flag" | "exit" | "grade" | "void" | "rebuild"

export interface LedgerEntry {
  readonly seq: number
  /** ISO 8601 UTC. */
  readonly at: string
  readonly kind: LedgerKind
  readonly pick_id: number | null
  readonly payload: string
  readonly prev_hash: string
  readonly hash: string
}

/** JSON with object keys sorted at every level; `undefined` members dropped; non-finite numbers as null. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || value === undefined) return "null"
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null"
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value)
  if (value instanceof Date) return JSON.stringify(value.toISOString())
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined)
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return "null"
}

export const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

export const chainHash = (prevHash: string, payload: string) => sha256Hex(`${prevHash}\n${payload}`)

/** The payload of an entry: what is hashed. */
export const entryPayload = (e: { seq: number; at: string; kind: LedgerKind; pick_id: number | null; data: unknown }) =>
  canonicalJson({ seq: e.seq, at: e.at, kind: e.kind, pick_id: e.pick_id, data: e.data })

/** The next entry after `prev` (null: the first). */
export const nextEntry = (
  prev: { readonly seq: number; readonly hash: string } | null,
  e: { at: string; kind: LedgerKind; pick_id: number | null; data: unknown }
): LedgerEntry => {
  const seq = (prev?.seq ?? 0) + 1
  const payload = entryPayload({ seq, ...e })
  const prevHash = prev?.hash ?? GENESIS
  return { seq, at: e.at, kind: e.kind, pick_id: e.pick_id, payload, prev_hash: prevHash, hash: chainHash(prevHash, payload) }
}

export type Verification =
  | { readonly ok: true; readonly entries: number; readonly head: string }
  | { readonly ok: false; readonly seq: number; readonly problem: string }

/**
 * Checks a run of entries (consecutive `seq`, starting after `from`, or at 1 from genesis): each `prev_hash` is the
 * previous `hash`, each `hash` is recomputed from the payload, and the payload's own seq/kind/pick_id/at match the
 * row. Times must not go backwards.
 */
export const verifyChain = (entries: ReadonlyArray<LedgerEntry>, from: { seq: number; hash: string } | null = null): Verification => {
  let prevSeq = from?.seq ?? 0
  let prevHash = from?.hash ?? GENESIS
  let prevAt = ""
  for (const e of entries) {
    if (e.seq !== prevSeq + 1) return { ok: false, seq: e.seq, problem: `expected seq ${prevSeq + 1}: an entry is missing` }
    if (e.prev_hash !== prevHash) return { ok: false, seq: e.seq, problem: "prev_hash does not match the previous entry" }
    if (chainHash(e.prev_hash, e.payload) !== e.hash) return { ok: false, seq: e.seq, problem: "hash does not match the payload" }
    let parsed: { seq?: unknown; kind?: unknown; pick_id?: unknown; at?: unknown }
    try {
      parsed = JSON.parse(e.payload) as typeof parsed
    } catch {
      return { ok: false, seq: e.seq, problem: "payload is not JSON" }
    }
    if (parsed.seq !== e.seq || parsed.kind !== e.kind || parsed.pick_id !== e.pick_id || parsed.at !== e.at) {
      return { ok: false, seq: e.seq, problem: "payload does not match the entry's seq, kind, pick or time" }
    }
    if (e.at < prevAt) return { ok: false, seq: e.seq, problem: "time goes backwards (back-dated entry)" }
    prevSeq = e.seq
    prevHash = e.hash
    prevAt = e.at
  }
  return { ok: true, entries: entries.length, head: prevHash }
}

/** The root of each UTC day: the hash of its last entry. */
export const dailyRoots = (entries: ReadonlyArray<LedgerEntry>) => {
  const roots = new Map<string, { day: string; root: string; last_seq: number; entries: number }>()
  for (const e of entries) {
    const day = e.at.slice(0, 10)
    const cur = roots.get(day)
    roots.set(day, { day, root: e.hash, last_seq: e.seq, entries: (cur?.entries ?? 0) + 1 })
  }
  return [...roots.values()]
}
