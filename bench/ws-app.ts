/**
 * `npm run bench:ws`, our side: the app in the http role (embedded defaults, in-process bus) with a producer that
 * publishes trades on `chain.tx` when told to — the hub relays them to its WebSocket clients through uWS pub/sub,
 * exactly the production path (bus → relay → app.publish).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Runtime } from "effect"
import { STREAMS } from "../schema/streams"
import { AppLive } from "../server/App"
import { Bus } from "../server/platform/infra/Bus"
import { onCommands, paced, reply, rssAfterGc, trade } from "./ws-support"

const Producer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const bus = yield* Bus
    const run = Runtime.runPromise(yield* Effect.runtime<never>())
    onCommands((c) => {
      if (c.op === "rss") return void rssAfterGc().then((rss) => reply({ rss }))
      void paced(c, (count) => run(bus.publishMany(STREAMS.chainTx, Array.from({ length: count }, trade)).pipe(Effect.asVoid))).then((sent) =>
        reply({ done: sent })
      )
    })
    reply({ ready: true })
  })
)

NodeRuntime.runMain(Layer.launch(Producer.pipe(Layer.provideMerge(AppLive))), { disablePrettyLogger: true })
