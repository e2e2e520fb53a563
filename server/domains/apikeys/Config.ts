/** The API keys domain's settings (its config slice). */
import { Config, Effect } from "effect"

export class ApiKeysConfig extends Effect.Service<ApiKeysConfig>()("app/apikeys/ApiKeysConfig", {
  effect: Config.all({
    /** How long a resolved key (owner and tier) is reused; revocation elsewhere takes effect within this. */
    keyCacheMs: Config.integer("API_KEY_CACHE_MS").pipe(Config.withDefault(2_000))
  })
}) {}
