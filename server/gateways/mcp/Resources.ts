/**
 * MCP resources: the Whale Sentiment Index (`whale://index`) and a token's latest flows
 * (`whale://tokens/{token}/flows`: the last 24 hours by category, the public read model), as JSON text.
 */
import { Effect } from "effect"
import { ReadModels } from "../../domains/analytics/ReadModels"
import { ErrorCode, RpcFailure } from "./Protocol"

const MIME = "application/json"
export const INDEX_URI = "whale://index"
const TOKEN_FLOWS = /^whale:\/\/tokens\/([^/]{1,64})\/flows$/

export const RESOURCES = [
  { uri: INDEX_URI, name: "whale-index", title: "Whale Sentiment Index", description: "Today's 0-100 whale buy/sell score, components and 30 daily closes", mimeType: MIME }
]
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: "whale://tokens/{token}/flows", name: "token-flows", title: "A token's latest whale flows",
    description: "The last 24 hours of whale flows of a token (address or symbol): DEX buys and sells, exchange withdrawals and deposits (USD)", mimeType: MIME
  }
]

export const makeResources = Effect.gen(function* () {
  const models = yield* ReadModels
  const read = (uri: string) =>
    Effect.gen(function* () {
      if (uri === INDEX_URI) return { contents: [{ uri, mimeType: MIME, text: (yield* models.whaleIndex()).json }] }
      const m = TOKEN_FLOWS.exec(uri)
      if (m === null) return yield* Effect.fail(new RpcFailure(-32002, `Resource not found: ${uri}`))
      const flows = yield* models.flows("24H", 1, decodeURIComponent(m[1]!))
      return { contents: [{ uri, mimeType: MIME, text: flows.json }] }
    })
  return { read } as const
})
