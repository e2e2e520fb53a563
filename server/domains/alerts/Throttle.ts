/**
 * Flood control, pure and clock-injected:
 *  - per-type cooldowns: after an alert fires, its further matches within the cooldown are recorded (status
 *    `cooldown`, visible in the history) but not sent; the next message of that alert says how many it folded;
 *  - the per-user hourly budget: past it, a delivery is folded (`digested`) into ONE digest message per user and
 *    hour, sent when the hour ends — never silently dropped;
 *  - the messenger pacer: at most one message per chat per second and `globalPerSecond` overall (the Bot API's
 *    published limits), and a 429's `retry_after` pushes the chat (and everyone, for a global flood wait) back.
 */
import type { AlertType } from "../../../schema/http/alerts"

/** Default cooldown per alert type, seconds (documented in the README). */
export const DEFAULT_COOLDOWNS: Readonly<Record<AlertType, number>> = {
  whale_trade: 60,
  wallet_activity: 30,
  exchange_flow: 300,
  // One fire per token per window already (see Convergence.ts).
  convergence: 0,
  index_cross: 3_600,
  playbook_live: 0,
  pick_flagged: 0
}

/** Whether an alert that last fired at `lastFiredAt` (epoch ms, or null) may fire again at `now`. */
export const cooledDown = (lastFiredAt: number | null, now: number, cooldownSeconds: number) =>
  lastFiredAt === null || cooldownSeconds <= 0 || now - lastFiredAt >= cooldownSeconds * 1000

/** Tracks the last fire per alert (one process's view; persisted as `last_fired_at`). */
export class Cooldowns {
  private readonly last = new Map<number, number>()
  private readonly folded = new Map<number, number>()
  constructor(private readonly cooldownOf: (type: AlertType) => number) {}

  /** Seeds the last fire time of an alert (from the database). */
  seed(alertId: number, lastFiredAt: number | null) {
    if (lastFiredAt !== null && (this.last.get(alertId) ?? 0) < lastFiredAt) this.last.set(alertId, lastFiredAt)
  }

  /**
   * `send` and the number of matches folded since the last send, or `cooldown` (counted for the next send).
   * `at` is the match's time (the record's block time, so a replay decides the same way).
   */
  take(alertId: number, type: AlertType, at: number): { readonly verdict: "send"; readonly folded: number } | { readonly verdict: "cooldown" } {
    if (!cooledDown(this.last.get(alertId) ?? null, at, this.cooldownOf(type))) {
      this.folded.set(alertId, (this.folded.get(alertId) ?? 0) + 1)
      return { verdict: "cooldown" }
    }
    this.last.set(alertId, Math.max(at, this.last.get(alertId) ?? 0))
    const folded = this.folded.get(alertId) ?? 0
    this.folded.delete(alertId)
    return { verdict: "send", folded }
  }

  forget(alertId: number) {
    this.last.delete(alertId)
    this.folded.delete(alertId)
  }
}

/** Start of the UTC hour of `now` (epoch ms). */
export const hourOf = (now: number) => Math.floor(now / 3_600_000) * 3_600_000

/** Whether the `used`-th notification of the hour (1-based, after counting it) fits in the budget. */
export const withinBudget = (used: number, budget: number) => used <= budget

// ---------------------------------------------------------------------------------------------------------------

export interface PacerOptions {
  /** Minimum gap between two messages to one chat (ms). */
  readonly perChatGapMs: number
  /** Messages per second over all chats. */
  readonly globalPerSecond: number
}

export const BOT_API_LIMITS: PacerOptions = { perChatGapMs: 1_000, globalPerSecond: 30 }

/**
 * Schedules messenger sends: `reserve(chat, now)` answers how long to wait before sending (0: now) and books the
 * slot. A 429 answer's `retry_after` is honoured with `backOff`.
 */
export class Pacer {
  private readonly chatNext = new Map<string, number>()
  /** Booked send times of the last second and later, ascending. */
  private booked: Array<number> = []
  private globalUntil = 0
  constructor(private readonly options: PacerOptions) {}

  reserve(chat: string, now: number): number {
    this.booked = this.booked.filter((t) => t > now - 1000)
    let at = Math.max(now, this.chatNext.get(chat) ?? 0, this.globalUntil)
    // The earliest time with fewer than `globalPerSecond` sends booked in the second before it.
    for (;;) {
      const inWindow = this.booked.filter((t) => t > at - 1000 && t <= at)
      if (inWindow.length < this.options.globalPerSecond) break
      at = inWindow[0]! + 1000
    }
    let i = this.booked.length
    while (i > 0 && this.booked[i - 1]! > at) i--
    this.booked.splice(i, 0, at)
    this.chatNext.set(chat, at + this.options.perChatGapMs)
    if (this.chatNext.size > 50_000) this.sweep(now)
    return at - now
  }

  /** A 429 with `retry_after` seconds: nothing more to that chat (or, `global`, to anyone) before then. */
  backOff(chat: string, now: number, retryAfterSeconds: number, global = false) {
    const until = now + Math.max(1, retryAfterSeconds) * 1000
    this.chatNext.set(chat, Math.max(this.chatNext.get(chat) ?? 0, until))
    if (global) this.globalUntil = Math.max(this.globalUntil, until)
  }

  private sweep(now: number) {
    for (const [k, v] of this.chatNext) if (v < now) this.chatNext.delete(k)
  }
}

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
