/**
 * The fan-outs of the shards this process runs (ALERT_SHARDS > 1, matching/Shard.ts): each shard its own index (only
 * its users' alerts, loaded and followed on its own), its own cooldown floor, and its own `notify.<k>` stream. Built
 * on first use and kept for the process's life (a shard that moves away and back finds its index warm, brought up to
 * date by its next sync). The work of shared state — the convergence window, cooldown gates, the deliveries' unique
 * key — is the same as with one fan-out, so two processes briefly running one shard (a lease handed over) record
 * nothing twice.
 */
import { Effect } from "effect"
import { notifyStreamOf } from "../../../../schema/streams"
import { AlertsConfig } from "../Config"
import { AlertConvergence } from "../convergence/Convergence"
import { DeliveriesRepo } from "../delivery/DeliveriesRepo"
import { SettingsRepo } from "../channels/SettingsRepo"
import { AlertChanges } from "../subscriptions/Changes"
import { SubscriptionsRepo } from "../subscriptions/SubscriptionsRepo"
import { WalletsRepo } from "../wallets/WalletsRepo"
import { Entitlements } from "../../accounts/Entitlements"
import { makeAlertIndex } from "./AlertIndex"
import { makeCooldowns } from "./Cooldowns"
import { AlertNotifier } from "../delivery/Notifier"
import { makeAlertFanout } from "./Fanout"
import { AlertWalletFacts } from "./WalletFacts"

export type ShardFanout = Effect.Effect.Success<ReturnType<typeof makeAlertFanout>>

export class AlertShardFanouts extends Effect.Service<AlertShardFanouts>()("app/AlertShardFanouts", {
  dependencies: [
    SubscriptionsRepo.Default, SettingsRepo.Default, WalletsRepo.Default, AlertChanges.Default, AlertConvergence.Default,
    AlertsConfig.Default, Entitlements.Default, DeliveriesRepo.Default, AlertWalletFacts.Default, AlertNotifier.Default
  ],
  effect: Effect.gen(function* () {
    const config = yield* AlertsConfig
    const context = yield* Effect.context<
      SubscriptionsRepo | SettingsRepo | WalletsRepo | AlertChanges | AlertConvergence | AlertsConfig | Entitlements | DeliveriesRepo | AlertWalletFacts | AlertNotifier
      | Effect.Effect.Context<ReturnType<typeof makeAlertFanout>> | Effect.Effect.Context<ReturnType<typeof makeCooldowns>>
    >()
    const built = new Map<number, ShardFanout>()

    const build = (index: number) =>
      Effect.gen(function* () {
        const shard = { index, count: config.shards }
        const alertIndex = yield* makeAlertIndex(shard)
        const cooldowns = yield* makeCooldowns(alertIndex)
        return yield* makeAlertFanout(alertIndex, cooldowns, notifyStreamOf(index, config.shards))
      }).pipe(Effect.provide(context))

    return {
      /** How many shards the index is split into (ALERT_SHARDS). */
      count: config.shards,
      /** Shard `index`'s fan-out (built on first use). */
      forShard: Effect.fn("AlertShardFanouts.forShard")(function* (index: number) {
        const known = built.get(index)
        if (known !== undefined) return known
        const made = yield* build(index)
        built.set(index, made)
        return made
      })
    } as const
  })
}) {}
