/**
 * The free MCP endpoint (spec §1) on our own route table — JSON-RPC 2.0 over Streamable HTTP with JSON responses:
 *  - `initialize` opens a session (its id in the `mcp-session-id` header, kept in Kv for MCP_SESSION_TTL_SECONDS
 *    since last use, so any process of the deployment serves it); later requests must carry it: missing → 400,
 *    unknown or ended → 404;
 *  - notifications (no `id`) → 202 without a body; requests → 200 with the JSON-RPC answer (an array for a batch);
 *  - methods: `initialize`, `ping`, `tools/list`, `tools/call`, `resources/list`, `resources/templates/list`,
 *    `resources/read` (Resources.ts); anything else → -32601; bad params → -32602;
 *    unparsable JSON → -32700; a message that is not JSON-RPC → -32600.
 */
import { randomUUID } from "node:crypto"
import { Effect, Option } from "effect"
import { Analytics } from "../../domains/analytics/Analytics"
import { ReadModels } from "../../domains/analytics/ReadModels"
import { Kv } from "../../platform/infra/Kv"
import { validateSync } from "../../platform/http/Validate"
import {
  ErrorCode, JsonRpcMessage, LATEST_PROTOCOL_VERSION, PROTOCOL_VERSIONS, rpcError, rpcResult, RpcFailure, SESSION_HEADER, ToolCallParams,
  VERSION_HEADER, type RequestId
} from "./Protocol"
import { McpConfig } from "./Config"
import { describeTool, makeTools } from "./Tools"
import { makeResources, RESOURCE_TEMPLATES, RESOURCES } from "./Resources"

export interface McpAnswer {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: unknown
}

const SERVER_INFO = { name: "whale-intelligence", title: "Whale Intelligence", version: "0.1.0" }
const INSTRUCTIONS = "Observational on-chain analytics of large Ethereum holders (whales): sentiment index, top tokens, flows, " +
  "accumulation, wallet search, the event playbook and graded whale picks. Data licensed CC-BY-4.0; not financial advice."
const sessionKey = (id: string) => `mcp:session:${id}`

export class Mcp extends Effect.Service<Mcp>()("app/Mcp", {
  dependencies: [ReadModels.Default, Analytics.Default, McpConfig.Default],
  effect: Effect.gen(function* () {
    const kv = yield* Kv
    const tools = yield* makeTools
    const resources = yield* makeResources
    const byName = new Map(tools.map((t) => [t.name, t]))
    const listed = tools.map(describeTool)
    const ttl = (yield* McpConfig).sessionTtlSeconds

    const call = (params: unknown) =>
      Effect.gen(function* () {
        const p = ToolCallParams.safeParse(params)
        if (!p.success) return yield* Effect.fail(new RpcFailure(ErrorCode.InvalidParams, "tools/call needs a tool name and an arguments object"))
        const tool = byName.get(p.data.name)
        if (!tool) return yield* Effect.fail(new RpcFailure(ErrorCode.InvalidParams, `Unknown tool: ${p.data.name}`))
        const args = validateSync("body", tool.input, p.data.arguments ?? {})
        if (!args.ok) return yield* Effect.fail(new RpcFailure(ErrorCode.InvalidParams, `Invalid arguments for ${tool.name}`, args.issues))
        const { value, json } = yield* tool.run(args.value)
        return { content: [{ type: "text", text: json }], structuredContent: value, isError: false }
      })

    const dispatch = (message: JsonRpcMessage, version: string): Effect.Effect<unknown, RpcFailure> => {
      switch (message.method) {
        case "ping":
          return Effect.succeed({})
        case "tools/list":
          return Effect.succeed({ tools: listed })
        case "tools/call":
          return call(message.params)
        case "resources/list":
          return Effect.succeed({ resources: RESOURCES })
        case "resources/templates/list":
          return Effect.succeed({ resourceTemplates: RESOURCE_TEMPLATES })
        case "resources/read": {
          const uri = (message.params as { uri?: unknown } | undefined)?.uri
          if (typeof uri !== "string") return Effect.fail(new RpcFailure(ErrorCode.InvalidParams, "resources/read needs a uri"))
          return resources.read(uri)
        }
        case "initialize":
          return Effect.fail(new RpcFailure(ErrorCode.InvalidRequest, "initialize must be sent alone, without a session"))
        default:
          return Effect.fail(new RpcFailure(ErrorCode.MethodNotFound, `Method not found: ${message.method} (protocol ${version})`))
      }
    }

    /** One message: its answer (null for a notification). */
    const answer = (raw: unknown, version: string) =>
      Effect.gen(function* () {
        const parsed = JsonRpcMessage.safeParse(raw)
        if (!parsed.success) {
          const id = (raw as { id?: unknown } | null)?.id
          return rpcError(typeof id === "string" || typeof id === "number" ? id : null, ErrorCode.InvalidRequest, "Invalid JSON-RPC message")
        }
        const message = parsed.data
        if (message.id === undefined) return null
        const id: RequestId = message.id
        return yield* dispatch(message, version).pipe(
          Effect.map((result) => rpcResult(id, result) as unknown),
          Effect.catchAll((f) => Effect.succeed(rpcError(id, f.code, f.message, f.data))),
          Effect.catchAllDefect((defect) =>
            Effect.logError("MCP method failed", defect).pipe(Effect.as(rpcError(id, ErrorCode.InternalError, "Internal error"))))
        )
      })

    const initialize = (message: JsonRpcMessage & { id: RequestId }) =>
      Effect.gen(function* () {
        const requested = message.params?.protocolVersion
        const version = typeof requested === "string" && (PROTOCOL_VERSIONS as ReadonlyArray<string>).includes(requested) ? requested : LATEST_PROTOCOL_VERSION
        const session = randomUUID()
        yield* kv.set(sessionKey(session), version, ttl)
        return {
          status: 200,
          headers: [[SESSION_HEADER, session]] as const,
          body: rpcResult(message.id, { protocolVersion: version, capabilities: { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } }, serverInfo: SERVER_INFO, instructions: INSTRUCTIONS })
        }
      })

    const bad = (status: number, code: number, message: string): McpAnswer => ({ status, headers: [], body: rpcError(null, code, message) })

    /** A POST /mcp: the raw body and the request's headers. */
    const post = Effect.fn("Mcp.post")(function* (rawBody: Buffer, headers: ReadonlyMap<string, string>) {
      let payload: unknown
      try {
        payload = JSON.parse(rawBody.toString("utf8"))
      } catch {
        return bad(400, ErrorCode.ParseError, "Parse error: the body is not JSON")
      }
      const single = JsonRpcMessage.safeParse(payload)
      if (single.success && single.data.method === "initialize" && single.data.id !== undefined) {
        return yield* initialize(single.data as JsonRpcMessage & { id: RequestId })
      }
      const given = headers.get(VERSION_HEADER)
      if (given !== undefined && !(PROTOCOL_VERSIONS as ReadonlyArray<string>).includes(given)) {
        return bad(400, ErrorCode.InvalidRequest, `Unsupported ${VERSION_HEADER}: ${given}`)
      }
      const session = headers.get(SESSION_HEADER)
      if (session === undefined) return bad(400, ErrorCode.InvalidRequest, `Bad Request: the ${SESSION_HEADER} header is required (send initialize first)`)
      const version = yield* kv.get(sessionKey(session))
      if (Option.isNone(version)) return bad(404, ErrorCode.InvalidRequest, "Session not found: initialize again")
      yield* kv.set(sessionKey(session), version.value, ttl)
      const batch = Array.isArray(payload)
      const messages: ReadonlyArray<unknown> = batch ? payload as ReadonlyArray<unknown> : [payload]
      if (messages.length === 0) return bad(400, ErrorCode.InvalidRequest, "Empty batch")
      const answers = (yield* Effect.forEach(messages, (m) => answer(m, version.value))).filter((a) => a !== null)
      if (answers.length === 0) return { status: 202, headers: [], body: null }
      return { status: 200, headers: [[SESSION_HEADER, session]] as const, body: batch ? answers : answers[0] }
    })

    /** DELETE /mcp: ends the session. */
    const end = Effect.fn("Mcp.end")(function* (headers: ReadonlyMap<string, string>) {
      const session = headers.get(SESSION_HEADER)
      if (session === undefined) return bad(400, ErrorCode.InvalidRequest, `Bad Request: the ${SESSION_HEADER} header is required`)
      if (Option.isNone(yield* kv.get(sessionKey(session)))) return bad(404, ErrorCode.InvalidRequest, "Session not found")
      yield* kv.del(sessionKey(session))
      return { status: 204, headers: [], body: null } satisfies McpAnswer
    })

    return { post, end, tools: listed } as const
  })
}) {}
