/**
 * Flood control's rules, pure (the shared state lives in Kv: cooldown gates in matching/Cooldowns.ts, pacing slots in delivery/Messenger.ts):
 *  - per-type cooldowns: after an alert fires, its further matches within the cooldown are counted, not sent; the
 *    next message of that alert says how many it folded;
 *  - the per-user hourly budget: past it, a delivery is folded (`digested`) into ONE digest message per user and
 *    hour, sent when the hour ends — never silently dropped;
 *  - messenger pacing: at most one message per chat per second and 30 a second overall (the Bot API's published
 *    limits), and a 429's `retry_after` pushes the chat back.
 */
import type { AlertType } from "../../../schema/http/alerts"

/** Default cooldown per alert type, seconds (documented in the README). */
export const DEFAULT_COOLDOWNS: Readonly<Record<AlertType, number>> = {
  whale_trade: 60,
  wallet_activity: 30,
  exchange_flow: 300,
  // One fire per token per window already (see convergence/Window.ts).
  convergence: 0,
  index_cross: 3_600,
  playbook_live: 0,
  pick_flagged: 0
}

/** Start of the UTC hour of `now` (epoch ms). */
export const hourOf = (now: number) => Math.floor(now / 3_600_000) * 3_600_000

/** Whether the `used`-th notification of the hour (1-based, after counting it) fits in the budget. */
export const withinBudget = (used: number, budget: number) => used <= budget

// ---------------------------------------------------------------------------------------------------------------

/** Retry schedules (delay before attempt n+1, ms). Webhooks: about three days in all, as the convention suggests. */
export const WEBHOOK_RETRY_MS: ReadonlyArray<number> = [
  5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 14 * 3_600_000, 20 * 3_600_000, 20 * 3_600_000
]
export const MESSENGER_RETRY_MS: ReadonlyArray<number> = [2_000, 10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000]
export const EMAIL_RETRY_MS: ReadonlyArray<number> = [30_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000]

/** The delay before the next attempt after `attempts` failed ones, or null when the schedule is exhausted. */
export const nextRetryDelay = (schedule: ReadonlyArray<number>, attempts: number): number | null =>
  attempts >= 1 && attempts <= schedule.length ? schedule[attempts - 1]! : null
