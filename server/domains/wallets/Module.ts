/**
 * Wallets (issue 28 part 6, issue 29 part 1): a wallet as its page and the keyed wallet endpoints show it, composed
 * from the identity, chain, analytics, picks and alerts services (`WalletProfiles`). No tables and no routes of its
 * own: the console gateway serves the page's reads, the data API gateway the keyed endpoints. Listed after the
 * alerts module (custom wallets decide who may see what).
 */
import { defineModule } from "../../platform/Module"
import { WalletProfiles } from "./WalletProfiles"

export const WalletsModule = defineModule({
  name: "wallets",
  layer: WalletProfiles.Default
})
