/** A controlled clock for a running app: real time plus an offset the test moves forward; sleeps stay real. */
import { Clock, Effect } from "effect"

export interface ControlledClock {
  readonly clock: Clock.Clock
  /** Moves time forward by `ms`. */
  readonly advance: (ms: number) => void
  readonly now: () => number
}

export const controlledClock = (): ControlledClock => {
  const live = Clock.make()
  let offset = 0
  const now = () => Date.now() + offset
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: now,
    currentTimeMillis: Effect.sync(now),
    unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos() + BigInt(offset) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => live.unsafeCurrentTimeNanos() + BigInt(offset) * 1_000_000n),
    sleep: (d) => live.sleep(d)
  }
  return { clock, advance: (ms) => void (offset += ms), now }
}

export const DAY_MS = 86_400_000
