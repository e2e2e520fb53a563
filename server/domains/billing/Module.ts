/**
 * What the billing domain brings to the app: its services (the providers' gateways start their local stand-ins
 * when unconfigured) and its routes. The drip-mailer actor runs its schedule (Drip, BillingSchedule).
 */
import { type ConfigError, Effect, Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { BillingErrors } from "./Errors"
import { Billing } from "./Billing"
import { CardGateway } from "./card/CardGateway"
import { BillingConfig } from "./Config"
import { CardWebhook } from "./card/CardWebhook"
import { CryptoGateway } from "./crypto/CryptoGateway"
import { CryptoPayments } from "./crypto/CryptoPayments"
import { Drip } from "./Drip"
import { DripRoutes } from "./DripHttp"
import { BillingRoutes as Core } from "./Http"
import { BillingSchedule } from "./Schedule"

const BillingLive = Layer.mergeAll(
  CardGateway.Default, CryptoGateway.Default, Billing.Default, CardWebhook.Default, CryptoPayments.Default, Drip.Default, BillingSchedule.Default
)

export const BillingModule = defineModule({
  name: "billing",
  layer: BillingLive,
  // Read before the database opens: a production start configured for test payments is refused at once.
  config: Layer.effectDiscard(BillingConfig) as Layer.Layer<unknown, ConfigError.ConfigError>,
  routes: Effect.all([Core, DripRoutes]).pipe(Effect.map((lists) => lists.flat())),
  errors: BillingErrors,
  tokenKinds: ["waitlist_confirm", "marketing_unsubscribe"]
})
