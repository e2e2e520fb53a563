/** The free public API: cached analytics under CC-BY-4.0. */
import { defineModule } from "../../platform/Module"
import { PublicApiConfig } from "./Config"
import { PublicApiRoutes } from "./Http"
import { PublicApi } from "./PublicApi"

export const PublicApiModule = defineModule({ name: "publicapi", config: PublicApiConfig.Default, layer: PublicApi.Default, routes: PublicApiRoutes })
