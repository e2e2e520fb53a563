/** The price list of the tiers (`/api/pricing`). */
import { defineModule } from "../../platform/Module"
import { PricingRoutes } from "./Http"
import { Pricing } from "./Pricing"

export const PricingModule = defineModule({ name: "pricing", layer: Pricing.Default, routes: PricingRoutes })
