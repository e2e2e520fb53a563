/**
 * The identity domain's settings (its config slice): whale discovery on chain (Discovery.ts, issue 28 part 4).
 * Read once at start; a bad value fails the start naming the variable.
 */
import { Config, ConfigError, Effect, Either } from "effect"

export const DISCOVERY_MODES = ["auto", "review", "off"] as const
export type DiscoveryMode = (typeof DISCOVERY_MODES)[number]

const positive = (name: string, fallback: number) => Config.number(name).pipe(Config.withDefault(fallback))

export const discoverySettings = Config.all({
  /** auto: candidates that measure large enough join the tracked set; review: they wait for an operator; off. */
  mode: Config.literal(...DISCOVERY_MODES)("WHALE_DISCOVERY").pipe(Config.withDefault("auto" as DiscoveryMode)),
  /** A wallet that moves or trades at least this much (USD) in one transaction becomes a candidate. */
  minUsd: positive("WHALE_MIN_USD", 1_000_000),
  /** A candidate joins the tracked set when its measured holdings reach this (USD). */
  minHoldingsUsd: positive("WHALE_MIN_HOLDINGS_USD", 10_000_000),
  /** At most this many discovered wallets are tracked at once (seed, imported and custom ones are not counted). */
  maxTracked: Config.integer("WHALE_MAX_TRACKED").pipe(Config.withDefault(500)),
  /** A discovered wallet with no activity for this many days leaves the tracked set (its history stays). */
  idleDays: positive("WHALE_IDLE_DAYS", 30),
  /** Holdings are measured again after this many hours (daily by default). */
  refreshHours: positive("WHALE_REFRESH_HOURS", 24),
  /** Cohorts by measured holdings (USD): mega from the first, large from the second, mid below. */
  megaUsd: positive("WHALE_COHORT_MEGA_USD", 100_000_000),
  largeUsd: positive("WHALE_COHORT_LARGE_USD", 25_000_000),
  /** Blocks waiting for discovery (off the listener's path); older ones are dropped when it falls behind. */
  queueBlocks: Config.integer("WHALE_DISCOVERY_QUEUE").pipe(Config.withDefault(64))
}).pipe(
  Config.mapOrFail((s) => {
    const bad = (name: string, message: string) => Either.left(ConfigError.InvalidData([name], message))
    for (const [name, v] of [["WHALE_MIN_USD", s.minUsd], ["WHALE_MIN_HOLDINGS_USD", s.minHoldingsUsd], ["WHALE_IDLE_DAYS", s.idleDays],
      ["WHALE_REFRESH_HOURS", s.refreshHours], ["WHALE_COHORT_MEGA_USD", s.megaUsd], ["WHALE_COHORT_LARGE_USD", s.largeUsd]] as const) {
      if (!Number.isFinite(v) || v <= 0) return bad(name, `${name} must be a positive number, got ${v}`)
    }
    if (s.maxTracked < 0) return bad("WHALE_MAX_TRACKED", `WHALE_MAX_TRACKED must be 0 or more, got ${s.maxTracked}`)
    if (s.queueBlocks < 1) return bad("WHALE_DISCOVERY_QUEUE", `WHALE_DISCOVERY_QUEUE must be at least 1, got ${s.queueBlocks}`)
    if (s.largeUsd >= s.megaUsd) return bad("WHALE_COHORT_LARGE_USD", `WHALE_COHORT_LARGE_USD (${s.largeUsd}) must be below WHALE_COHORT_MEGA_USD (${s.megaUsd})`)
    return Either.right(s)
  })
)

export type DiscoverySettings = Config.Config.Success<typeof discoverySettings>

export class IdentityConfig extends Effect.Service<IdentityConfig>()("app/identity/IdentityConfig", {
  effect: discoverySettings
}) {}
