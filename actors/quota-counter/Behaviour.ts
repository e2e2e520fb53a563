/**
 * The quota-counter actor: consumes `api.usage` and persists each account's and key's daily request count, and
 * e-mails the owner once at 80 % and once at 100 % of the daily limit. The request path counts atomically in Redis
 * itself; this actor only keeps the books. Idempotent: events carry cumulative counts (the highest wins) and each
 * warning is a unique row. No transient state.
 */
import { Effect } from "effect"
import { STREAMS } from "../../schema/streams"
import { UsageLedger } from "../../server/domains/apikeys/UsageLedger"
import { streamActor } from "../../server/platform/actors/Actor"
import { QuotaCounterMessage } from "./Protocol"

export const QuotaCounterActor = streamActor({
  name: "quota-counter",
  stream: STREAMS.apiUsage,
  schema: QuotaCounterMessage,
  // Order does not matter (counts are cumulative, the highest wins): handle a few at once.
  concurrency: 4,
  behaviour: Effect.gen(function* () {
    const ledger = yield* UsageLedger
    return (message: QuotaCounterMessage) => {
      switch (message._tag) {
        case "ApiRequestCounted":
          return ledger.record(message)
      }
    }
  })
})
