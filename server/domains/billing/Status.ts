/**
 * The subscription status machine (pure). A subscription row follows what its provider says; this module decides
 * whether an incoming provider state may replace the stored one, and what changed.
 *
 *   (none) ──checkout/created──▶ incomplete ─paid─▶ active ◀──paid── past_due ──▶ unpaid
 *                 │                  │               │  ▲               │            │
 *                 └──────────────▶ trialing ─────────┘  └─renewal─┐     ▼            ▼
 *                                    │               cancel_at_period_end toggles   canceled (terminal)
 *                                    └──────────────────────────────────────────▶ canceled
 *   incomplete ─(23 h unpaid)─▶ incomplete_expired (terminal)
 *
 * Rules:
 *  - ordering: every provider state carries the provider's own time (the event's `created`); a state older than
 *    the stored one is `stale` and changes nothing, so shuffled or replayed deliveries end in the newest state;
 *  - `canceled` and `incomplete_expired` are terminal: a later payment is a new subscription (a new row);
 *  - any other move not in `NEXT` is refused as `illegal` (recorded, nothing changes);
 *  - the same status with other fields (period end, cancel-at-period-end, tier, interval, price) is an update.
 * Access is not decided here: the accounts domain's Entitlements turns a row into a tier (see its header).
 */
import { addPeriod, type ProviderInterval } from "./Plans"

export const SUB_STATUSES = ["incomplete", "trialing", "active", "past_due", "unpaid", "paused", "canceled", "incomplete_expired"] as const
export type SubStatus = (typeof SUB_STATUSES)[number]

export const isSubStatus = (s: unknown): s is SubStatus => typeof s === "string" && (SUB_STATUSES as ReadonlyArray<string>).includes(s)

/** Where each status may go (besides staying). */
export const NEXT: Readonly<Record<SubStatus, ReadonlyArray<SubStatus>>> = {
  incomplete: ["active", "trialing", "past_due", "incomplete_expired", "canceled"],
  trialing: ["active", "past_due", "unpaid", "paused", "canceled"],
  active: ["past_due", "unpaid", "paused", "canceled"],
  past_due: ["active", "unpaid", "canceled"],
  unpaid: ["active", "canceled"],
  paused: ["active", "canceled"],
  canceled: [],
  incomplete_expired: []
}

export const isTerminal = (s: SubStatus) => NEXT[s].length === 0

/** The fields of a subscription that follow the provider. */
export interface SubFields {
  readonly status: SubStatus
  readonly tier: string
  readonly interval: ProviderInterval
  readonly priceUsd: number | null
  readonly currentPeriodEnd: Date | null
  readonly cancelAtPeriodEnd: boolean
  readonly trialEnd: Date | null
  readonly canceledAt: Date | null
  readonly endedAt: Date | null
}

/** A provider's view of a subscription at its time `at`. */
export interface Snapshot extends SubFields {
  readonly at: Date
}

export interface Stored extends SubFields {
  /** Time of the newest provider state applied (null: none yet). */
  readonly stateAt: Date | null
}

export type Verdict =
  | { readonly kind: "stale" }
  | { readonly kind: "terminal"; readonly from: SubStatus; readonly to: SubStatus }
  | { readonly kind: "illegal"; readonly from: SubStatus; readonly to: SubStatus }
  | { readonly kind: "unchanged" }
  | { readonly kind: "apply"; readonly next: SubFields; readonly changes: ReadonlyArray<keyof SubFields> }

const FIELDS: ReadonlyArray<keyof SubFields> = ["status", "tier", "interval", "priceUsd", "currentPeriodEnd", "cancelAtPeriodEnd", "trialEnd", "canceledAt", "endedAt"]

const same = (a: unknown, b: unknown) =>
  a instanceof Date || b instanceof Date
    ? (a instanceof Date ? a.getTime() : a) === (b instanceof Date ? b.getTime() : b)
    : a === b

/** The fields that differ between two states. */
export const diff = (a: SubFields, b: SubFields): ReadonlyArray<keyof SubFields> => FIELDS.filter((f) => !same(a[f], b[f]))

/** Whether `incoming` may replace `current`, and what it changes. */
export const reconcile = (current: Stored | undefined, incoming: Snapshot): Verdict => {
  const { at: _at, ...next } = incoming
  if (!current) return { kind: "apply", next, changes: FIELDS }
  if (current.stateAt !== null && incoming.at.getTime() < current.stateAt.getTime()) return { kind: "stale" }
  if (current.status !== next.status) {
    if (isTerminal(current.status)) return { kind: "terminal", from: current.status, to: next.status }
    if (!NEXT[current.status].includes(next.status)) return { kind: "illegal", from: current.status, to: next.status }
  } else if (isTerminal(current.status)) {
    // A terminal row keeps what it ended with (a late duplicate of the final state changes nothing).
    return { kind: "unchanged" }
  }
  const changes = diff(current, next)
  return changes.length === 0 ? { kind: "unchanged" } : { kind: "apply", next, changes }
}

/**
 * A crypto payment that finished: activates a new period, or extends the running one by its period.
 *  - nothing running (no row, canceled, or its period over) → a new period from `paidAt`;
 *  - the same tier running → one more period after the current end;
 *  - another tier running → the paid tier starts now for a full period (what is left of the old one lapses).
 */
export const extendByPayment = (
  current: SubFields | undefined,
  paid: { readonly tier: string; readonly interval: ProviderInterval; readonly priceUsd: number; readonly paidAt: Date }
): SubFields => {
  const running = current !== undefined && current.status === "active" && current.currentPeriodEnd !== null &&
    current.currentPeriodEnd.getTime() > paid.paidAt.getTime()
  const from = running && current.tier === paid.tier ? current.currentPeriodEnd! : paid.paidAt
  return {
    status: "active",
    tier: paid.tier,
    interval: paid.interval,
    priceUsd: paid.priceUsd,
    currentPeriodEnd: addPeriod(from, paid.interval),
    cancelAtPeriodEnd: false,
    trialEnd: null,
    canceledAt: null,
    endedAt: null
  }
}
