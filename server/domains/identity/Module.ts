/**
 * Wallet identity (issue 28): who each address the chain meets is, and why. Brings the `WalletIdentity` service and
 * registers its block tap with the chain listener (BlockTaps.ts), so the behaviour rules run on every stored block in
 * the listener's path. No routes of its own: the wallet page and the keyed wallet endpoints read `identityOf` through
 * the wallets domain (server/domains/wallets); operators correct through `npm run wallets -- identity …`.
 */
import { Effect, Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { ChainBlockTaps } from "../chain/BlockTaps"
import { IdentityErrors } from "./Errors"
import { WalletIdentity } from "./WalletIdentity"

/** The identity engine on every block the listener stores. */
const IdentityTap = Layer.effectDiscard(Effect.gen(function* () {
  const taps = yield* ChainBlockTaps
  const identity = yield* WalletIdentity
  yield* taps.register({
    name: "identity",
    onBlock: ({ block, logs, source }) =>
      identity.observe(block, logs, source).pipe(
        Effect.tap(({ observed }) => Effect.logDebug(`identity: block ${block.number}: ${observed.met.length} addresses, ${observed.findings.length} findings, ${observed.sandwiches.length} sandwiches`))
      )
  })
}))

export const IdentityModule = defineModule({
  name: "identity",
  layer: Layer.provideMerge(IdentityTap, WalletIdentity.Default),
  errors: IdentityErrors
})
