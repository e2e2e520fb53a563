/**
 * JSON-RPC 2.0 as the Model Context Protocol uses it (Streamable HTTP transport, JSON responses only): message
 * shapes, error codes and the protocol versions this server speaks.
 */
import { z } from "zod"
import type { Effect } from "effect"
import type { Cached } from "../../domains/analytics/ReadModels"

export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const
export const LATEST_PROTOCOL_VERSION = PROTOCOL_VERSIONS[0]
export const SESSION_HEADER = "mcp-session-id"
export const VERSION_HEADER = "mcp-protocol-version"

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603
} as const

export type RequestId = string | number

export const JsonRpcMessage = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number().int()]).optional(),
  method: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional()
})
export type JsonRpcMessage = z.infer<typeof JsonRpcMessage>

export const ToolCallParams = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional()
})

export interface JsonRpcError {
  readonly jsonrpc: "2.0"
  readonly id: RequestId | null
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
}

export const rpcError = (id: RequestId | null, code: number, message: string, data?: unknown): JsonRpcError => ({
  jsonrpc: "2.0",
  id,
  error: data === undefined ? { code, message } : { code, message, data }
})

export const rpcResult = (id: RequestId, result: unknown) => ({ jsonrpc: "2.0" as const, id, result })

/** A JSON-RPC failure raised by a method handler. */
export class RpcFailure {
  readonly _tag = "RpcFailure"
  constructor(readonly code: number, readonly message: string, readonly data?: unknown) {}
}

/** An MCP tool: its schemas and what it answers (Tools.ts, LiveTools.ts). */
export interface Tool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly input: z.ZodObject
  readonly output: z.ZodObject
  /** An answer, or a failure the caller can act on (unknown token, bad range): a JSON-RPC error. */
  readonly run: (args: any) => Effect.Effect<Cached<unknown>, RpcFailure>
}
