/** The public API's settings (its config slice). */
import { Config, Effect } from "effect"

export class PublicApiConfig extends Effect.Service<PublicApiConfig>()("app/publicapi/PublicApiConfig", {
  effect: Config.all({
    /** Server-side cache of the public API (`Cache-Control: max-age` too). */
    publicCacheSeconds: Config.integer("PUBLIC_CACHE_SECONDS").pipe(Config.withDefault(60))
  })
}) {}
