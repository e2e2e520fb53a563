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
  yield* taps.register({
    name: "identity",
    onBlock: ({ block, logs, source }) =>
      identity.observe(block, logs, source).pipe(
        Effect.tap(({ observed }) => Effect.logDebug(`identity: block ${block.number}: ${observed.met.length} addresses, ${observed.findings.length} findings, ${observed.sandwiches.length} sandwiches`))
      )
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
