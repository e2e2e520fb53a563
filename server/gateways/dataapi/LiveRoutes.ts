/**
 * The expanded keyed routes (contracts in schema/http/dataapi-live.ts): a token's history (the metered path: count →
 * refuse → validate → envelope), and the two bulk exports (Export.ts). Same guard (`X-API-Key`, whale tier) as the
 * rest of the keyed API. The WebSocket feed is not a route: see Stream.ts.
 */
import { Effect } from "effect"
import { DataApiLiveEndpoints as E, ExportQuery, TokenFlowsExportQuery, TokenHistoryQuery } from "../../../schema/http/dataapi-live"
import { ApiKeyGuard } from "../../domains/apikeys/Guard"
import { Conflict, NotFound } from "../../platform/http/Errors"
import { route } from "../../platform/http/Route"
import { DataApi } from "./DataApi"
import { Exports } from "./Export"
import { TokenHistory } from "../../domains/analytics/TokenHistory"

export const DataApiLiveRoutes = Effect.gen(function* () {
  const api = yield* DataApi
  const { guard } = yield* ApiKeyGuard
  const history = yield* TokenHistory
  const exports = yield* Exports

  // One metered endpoint per token asked is cheap (a few closures); the token comes from the path.
  const historyOf = (token: string) =>
    api.serve(E.tokenHistory.path, TokenHistoryQuery, (q) =>
      history.history(token, q).pipe(
        Effect.map((value) => ({ value })),
        Effect.catchTags({
          HistoryTokenUnknown: (e) => Effect.fail(new NotFound({ message: `No token ${e.token}`, code: "token_not_found" })),
          HistoryTokenAmbiguous: (e) =>
            Effect.fail(new Conflict({ message: `The symbol ${e.token} names ${e.addresses.length} tokens: ask by address`, code: "ambiguous_token", extra: { addresses: e.addresses } }))
        })
      ))

  return [
    route(E.tokenHistory, { guard, rawQuery: true, handler: ({ params, auth, req }) => historyOf(params.token).effect(auth, req) }),
    route(E.exportTransactions, { guard, rawQuery: true, handler: ({ auth, req }) => exports.transactions(auth, req, E.exportTransactions.path, ExportQuery) }),
    route(E.exportTokenFlows, { guard, rawQuery: true, handler: ({ auth, req }) => exports.tokenFlows(auth, req, E.exportTokenFlows.path, TokenFlowsExportQuery) })
  ]
})
