/** API keys: created, listed by prefix and revoked by their owner; the keyed data API's guard. */
import { Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { ApiKeys } from "./ApiKeys"
import { ApiKeyErrors } from "./Errors"
import { ApiKeyGuard } from "./Guard"
import { ApiKeyRoutes } from "./Http"

export const ApiKeysModule = defineModule({
  name: "apikeys",
  layer: Layer.mergeAll(ApiKeys.Default, ApiKeyGuard.Default),
  routes: ApiKeyRoutes,
  errors: ApiKeyErrors
})
