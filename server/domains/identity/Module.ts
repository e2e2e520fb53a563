/**
 * Wallet identity (issue 28): who each address the chain meets is, and why. Brings the `WalletIdentity` and
 * `WhaleDiscovery` services and registers two block taps with the chain listener (BlockTaps.ts): the identity
 * engine, run on every stored block in the listener's path, then discovery's, which only queues the block for the
 * `whale-discovery` actor (off the listener's path). Routes: the admin console's corrections and candidates (Http.ts).
 * The wallet page and the keyed wallet endpoints read `identityOf` through the wallets domain (server/domains/wallets).
 */
import { Effect, Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { ChainBlockTaps } from "../chain/BlockTaps"
import { IdentityConfig } from "./Config"
import { WhaleDiscovery } from "./Discovery"
import { IdentityErrors } from "./Errors"
import { IdentityRoutes } from "./Http"
import { WalletIdentity } from "./WalletIdentity"

/** The identity engine on every block the listener stores; discovery's queue after it. */
const IdentityTap = Layer.effectDiscard(Effect.gen(function* () {
  const taps = yield* ChainBlockTaps
  const identity = yield* WalletIdentity
  const discovery = yield* WhaleDiscovery
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
  yield* taps.register({ name: "whale-discovery", onBlock: discovery.enqueue })
}))

const Services = WhaleDiscovery.Default.pipe(Layer.provideMerge(WalletIdentity.Default))

export const IdentityModule = defineModule({
  name: "identity",
  config: IdentityConfig.Default,
  layer: Layer.provideMerge(IdentityTap, Services),
  routes: IdentityRoutes,
  errors: IdentityErrors
})
