/** API keys: created, listed by prefix and revoked by their owner; the keyed data API's guard and its persisted usage. */
import { Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { ApiKeys } from "./ApiKeys"
import { ApiKeysConfig } from "./Config"
import { ApiKeyErrors } from "./Errors"
import { ApiKeyGuard } from "./Guard"
import { ApiKeyRoutes } from "./Http"
import { UsageLedger } from "./UsageLedger"

export const ApiKeysModule = defineModule({
  name: "apikeys",
  config: ApiKeysConfig.Default,
  layer: Layer.mergeAll(ApiKeysConfig.Default, ApiKeys.Default, ApiKeyGuard.Default, UsageLedger.Default),
  routes: ApiKeyRoutes,
  errors: ApiKeyErrors
})
