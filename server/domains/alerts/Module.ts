/**
 * Alerts, in parts (docs/domains/alerts.md, "Layout"): subscriptions/ (the alerts users set, `alerts.changes`),
 * channels/ (channel settings, the messenger connection and its bot — the `bot` role), wallets/ (custom wallets and
 * the internal feed), matching/ (the fan-out: the live index, cooldowns), convergence/ (its shared window), delivery/
 * (the notifier: budget, settling, a service per channel). The fan-out and the notifier are run by the alert-fanout
 * and notifier actors; the parts' inner services come with the layers of the ones below.
 */
import { Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { MessengerBotProcess } from "./channels/Bot"
import { Channels } from "./channels/Channels"
import { AlertsConfig } from "./Config"
import { AlertNotifier } from "./delivery/Notifier"
import { AlertErrors } from "./Errors"
import { AlertRoutes } from "./Http"
import { AlertFanout } from "./matching/Fanout"
import { AlertShardFanouts } from "./matching/Shards"
import { Alerts } from "./subscriptions/Alerts"
import { CustomWallets } from "./wallets/CustomWallets"

export const AlertsModule = defineModule({
  name: "alerts",
  config: AlertsConfig.Default,
  layer: Layer.mergeAll(
    AlertsConfig.Default, Alerts.Default, Channels.Default, CustomWallets.Default,
    AlertFanout.Default, AlertShardFanouts.Default, AlertNotifier.Default
  ),
  routes: AlertRoutes,
  processes: [MessengerBotProcess],
  errors: AlertErrors
})
