/** The picks domain's settings (its config slice): the only place it reads the environment. */
import { Config, Effect } from "effect"
import { HOUR_MS, type RuleSettings } from "./Rules"

export interface PicksSettings {
  readonly rules: RuleSettings
  /** Minimum n of any published rate or median (PICKS_MIN_N). */
  readonly minN: number
  /** How often the grader looks for due picks (PICKS_GRADE_INTERVAL_SECONDS). */
  readonly gradeIntervalMs: number
  /** Read views are reused this long (PICKS_CACHE_SECONDS). */
  readonly cacheMs: number
  /** PENDING picks younger than this are shown to pro tier and above only (PICKS_FREE_DELAY_HOURS). */
  readonly freeDelayMs: number
  /** Picks a backtest may consider before it answers 413 (BACKTEST_MAX_PICKS). */
  readonly backtestMaxPicks: number
}

const int = (name: string, fallback: number) => Config.integer(name).pipe(Config.withDefault(fallback))

export const picksSettings: Config.Config<PicksSettings> = Config.all({
  minWhales: int("PICKS_MIN_WHALES", 3),
  windowHours: Config.number("PICKS_WINDOW_HOURS").pipe(Config.withDefault(24)),
  closeMaxAgeHours: Config.number("PICKS_CLOSE_MAX_AGE_HOURS").pipe(Config.withDefault(48)),
  minN: int("PICKS_MIN_N", 20),
  gradeIntervalSeconds: int("PICKS_GRADE_INTERVAL_SECONDS", 60),
  cacheSeconds: int("PICKS_CACHE_SECONDS", 15),
  freeDelayHours: Config.number("PICKS_FREE_DELAY_HOURS").pipe(Config.withDefault(24)),
  backtestMaxPicks: int("BACKTEST_MAX_PICKS", 50_000)
}).pipe(
  Config.map((c) => ({
    rules: { minWhales: Math.max(1, c.minWhales), windowMs: c.windowHours * HOUR_MS, closeMaxAgeMs: c.closeMaxAgeHours * HOUR_MS },
    minN: Math.max(1, c.minN),
    gradeIntervalMs: Math.max(1, c.gradeIntervalSeconds) * 1000,
    cacheMs: Math.max(0, c.cacheSeconds) * 1000,
    freeDelayMs: Math.max(0, c.freeDelayHours) * HOUR_MS,
    backtestMaxPicks: Math.max(1, c.backtestMaxPicks)
  }))
)

export class PicksConfig extends Effect.Service<PicksConfig>()("app/picks/PicksConfig", {
  effect: picksSettings
}) {}
