/**
 * Wallet identity (issue 28): who each address the chain meets is, and why. Brings the `WalletIdentity` service and
 * registers its block tap with the chain listener (BlockTaps.ts), so the behaviour rules run on every stored block in
 * the listener's path. No routes yet: the wallet page, the keyed wallet endpoint and the admin console's corrections
 * come with issue 28's parts 5–6; operators correct through `npm run wallets -- identity …`.
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
  // Decoding learns the exchange wallets the label file does not name (deposit addresses, corrections): the stored
  // ones before the first block, then each block's changes (Decode.ts: exchange housekeeping is no flow).
  let loaded = false
  yield* taps.register({
    name: "identity",
    onBlock: ({ block, logs, source }) =>
      Effect.gen(function* () {
        if (!loaded) {
          yield* taps.noteExchanges(yield* identity.exchangeWallets)
          loaded = true
        }
        const { observed, changes } = yield* identity.observe(block, logs, source)
        yield* taps.noteExchanges(changes.identities.map(({ identity: i }) => [i.address, i.class === "exchange" ? i.exchange : null] as const))
        yield* Effect.logDebug(`identity: block ${block.number}: ${observed.met.length} addresses, ${observed.findings.length} findings, ${observed.sandwiches.length} sandwiches`)
      })
  })
}))

export const IdentityModule = defineModule({
  name: "identity",
  layer: Layer.provideMerge(IdentityTap, WalletIdentity.Default),
  errors: IdentityErrors
})
