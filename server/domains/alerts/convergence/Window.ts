/**
 * The convergence sliding window: per token, the recent whale buys (wallet, time, USD). A convergence alert fires
 * when at least `min_whales` distinct wallets bought its token, each at least `min_usd`, within `window_minutes`
 * ending at the newest buy; it then stays quiet for that token until a whole window has passed (one alert per
 * convergence, not one per further buyer).
 *
 * Buys older than the longest window any alert asks for (at most a day) are dropped. A retracted record (reorg)
 * is taken out of the window. Pure: times are the records' block times in epoch ms. The fan-out builds one per
 * round from the buys stored in the database (`alert_convergence_buys`), so every process judges on the same
 * window and a restart loses nothing; the fire itself is taken in the database (`alert_convergence_fired`).
 */
import type { ConvergenceParams } from "../../../../schema/http/alerts"

interface Buy {
  readonly wallet: string
  readonly at: number
  readonly usd: number
  /** Record key (for retractions). */
  readonly key: string
}

export interface Convergence {
  /** Distinct wallets that counted, newest first. */
  readonly wallets: ReadonlyArray<string>
  readonly totalUsd: number
  readonly windowStart: number
}

/** The longest window an alert may ask for (1,440 minutes). */
export const MAX_WINDOW_MS = 24 * 3_600_000

export class ConvergenceWindow {
  private readonly buys = new Map<string, Array<Buy>>()
  /** `${alertId}|${token}` → time of its last fire. */
  private readonly fired = new Map<string, number>()

  /** Adds a buy of `token` (lower-case address). Out-of-order buys are inserted in time order. */
  add(token: string, buy: Buy) {
    let list = this.buys.get(token)
    if (!list) this.buys.set(token, (list = []))
    if (list.some((b) => b.key === buy.key)) return
    let i = list.length
    while (i > 0 && list[i - 1]!.at > buy.at) i--
    list.splice(i, 0, buy)
    const cutoff = list[list.length - 1]!.at - MAX_WINDOW_MS
    let drop = 0
    while (drop < list.length && list[drop]!.at < cutoff) drop++
    if (drop > 0) list.splice(0, drop)
  }

  /** Takes a retracted record out of the window. */
  retract(token: string, key: string) {
    const list = this.buys.get(token)
    if (!list) return
    const i = list.findIndex((b) => b.key === key)
    if (i >= 0) list.splice(i, 1)
  }

  /**
   * Whether alert `alertId` (with `params`) fires for `token` at time `at` (the newest buy's time). When it does, the
   * fire is remembered: the same alert and token stay quiet until `window_minutes` have passed.
   */
  evaluate(alertId: number, params: ConvergenceParams, token: string, at: number): Convergence | null {
    const windowMs = params.window_minutes * 60_000
    const firedKey = `${alertId}|${token}`
    const last = this.fired.get(firedKey)
    if (last !== undefined && at - last < windowMs) return null
    const list = this.buys.get(token)
    if (!list) return null
    const start = at - windowMs
    const wallets: Array<string> = []
    const seen = new Set<string>()
    let totalUsd = 0
    for (let i = list.length - 1; i >= 0; i--) {
      const b = list[i]!
      if (b.at > at) continue
      if (b.at < start) break
      if (b.usd < params.min_usd) continue
      totalUsd += b.usd
      if (!seen.has(b.wallet)) {
        seen.add(b.wallet)
        wallets.push(b.wallet)
      }
    }
    if (wallets.length < params.min_whales) return null
    this.fired.set(firedKey, at)
    return { wallets, totalUsd, windowStart: start }
  }

  /** Forgets the fire memory of an alert (deleted or changed). */
  forget(alertId: number) {
    const prefix = `${alertId}|`
    for (const k of this.fired.keys()) if (k.startsWith(prefix)) this.fired.delete(k)
  }

  get tokens() {
    return this.buys.size
  }
}
