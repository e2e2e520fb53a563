/**
 * Alerts: typed subscriptions, channels (messenger, email, console, signed webhooks), custom wallets, the fan-out
 * and the notifier (run by the alert-fanout and notifier actors), and the messenger bot (the `bot` role).
 */
import { Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { Alerts } from "./subscriptions/Alerts"
import { MessengerBotProcess } from "./channels/Bot"
import { Channels } from "./channels/Channels"
import { AlertsConfig } from "./Config"
import { CustomWallets } from "./wallets/CustomWallets"
import { AlertErrors } from "./Errors"
import { AlertFanout } from "./matching/Fanout"
import { AlertRoutes } from "./Http"
import { AlertNotifier } from "./Notifier"

export const AlertsModule = defineModule({
  name: "alerts",
  config: AlertsConfig.Default,
  layer: Layer.mergeAll(
    AlertsConfig.Default, Alerts.Default, Channels.Default, CustomWallets.Default,
    AlertFanout.Default, AlertNotifier.Default
  ),
  routes: AlertRoutes,
  processes: [MessengerBotProcess],
  errors: AlertErrors
})
