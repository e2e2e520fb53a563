/** The site's server-rendered pages: legal pages, redirects, /positioning per tier, signed-in console pages. */
import { defineModule } from "../../platform/Module"
import { PagesRoutes } from "./Http"

export const PagesModule = defineModule({ name: "pages", routes: PagesRoutes })
