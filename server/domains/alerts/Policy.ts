/**
 * What each tier may do with alerts (docs/domains/alerts.md). The spec leaves the values open; these follow the
 * product's gates: playbook and custom wallets are whale features, convergence an alpha one, webhooks are for
 * whale integrations, the messenger from pro.
 */
import type { AlertType, Channel } from "../../../schema/http/alerts"
import { TIER_RANK, type Tier } from "../../../schema/tiers"

export interface TierPolicy {
  readonly maxAlerts: number
  readonly types: ReadonlyArray<AlertType>
  readonly channels: ReadonlyArray<Channel>
  readonly customWallets: boolean
}

const FREE_TYPES: ReadonlyArray<AlertType> = ["whale_trade", "index_cross"]
const PRO_TYPES: ReadonlyArray<AlertType> = [...FREE_TYPES, "wallet_activity", "exchange_flow", "pick_flagged"]
const ALPHA_TYPES: ReadonlyArray<AlertType> = [...PRO_TYPES, "convergence"]
const WHALE_TYPES: ReadonlyArray<AlertType> = [...ALPHA_TYPES, "playbook_live"]

export const POLICY: Readonly<Record<Exclude<Tier, "anon">, TierPolicy>> = {
  free: { maxAlerts: 3, types: FREE_TYPES, channels: ["console", "email"], customWallets: false },
  pro: { maxAlerts: 10, types: PRO_TYPES, channels: ["console", "email", "messenger"], customWallets: false },
  alpha: { maxAlerts: 25, types: ALPHA_TYPES, channels: ["console", "email", "messenger"], customWallets: false },
  whale: { maxAlerts: 100, types: WHALE_TYPES, channels: ["console", "email", "messenger", "webhook"], customWallets: true },
  staff: { maxAlerts: 1000, types: WHALE_TYPES, channels: ["console", "email", "messenger", "webhook"], customWallets: true }
}

export const policyOf = (tier: Tier): TierPolicy => (tier === "anon" ? { maxAlerts: 0, types: [], channels: [], customWallets: false } : POLICY[tier])

/** The lowest tier that allows an alert type or a channel. */
export const lowestTierFor = (what: { type?: AlertType; channel?: Channel }): Tier => {
  for (const tier of (["free", "pro", "alpha", "whale"] as const)) {
    const p = POLICY[tier]
    if (what.type !== undefined && !p.types.includes(what.type)) continue
    if (what.channel !== undefined && !p.channels.includes(what.channel)) continue
    return tier
  }
  return "staff"
}

export const atLeast = (tier: Tier, min: Tier) => TIER_RANK[tier] >= TIER_RANK[min]
