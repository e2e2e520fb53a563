/**
 * Internal ETH transfers of a transaction from a node's call traces (issue 11, item 2): geth's
 * `debug_traceTransaction` with `{ tracer: "callTracer" }` (a tree of calls, each with `from`, `to`, `value`,
 * `type`, `calls`) or OpenEthereum/Erigon/Nethermind's `trace_transaction` (a flat list of `{ action, traceAddress,
 * type }`). The top-level call is left out (its value is the transaction's own `value`, counted already); calls
 * that reverted move nothing, nor do their children; DELEGATECALL and STATICCALL carry no value of their own.
 *
 * `CHAIN_TRACES`: `on` (fail loudly if the node has neither), `off`, `auto` (probe once: the first method the node
 * answers without "method not found" is used; neither → no traces, decoding falls back to WETH Withdrawal events).
 */
import type { InternalTransfer } from "./Types"

export type TraceMode = "auto" | "on" | "off"
export type TraceMethod = "debug_traceTransaction" | "trace_transaction"

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const toBig = (v: unknown): bigint => {
  if (typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v)) return BigInt(v)
  if (typeof v === "string" && /^\d+$/.test(v)) return BigInt(v)
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  return 0n
}
const addr = (v: unknown) => (typeof v === "string" && ADDRESS.test(v) ? v.toLowerCase() : undefined)

interface CallFrame {
  readonly type?: string
  readonly from?: string
  readonly to?: string
  readonly value?: string
  readonly error?: string
  readonly calls?: ReadonlyArray<CallFrame>
}

/** Value-moving internal calls of a `callTracer` result, in execution order (reverted frames move nothing). */
export const fromCallTracer = (root: unknown): Array<InternalTransfer> => {
  const out: Array<InternalTransfer> = []
  const walk = (frame: CallFrame, top: boolean) => {
    if (typeof frame !== "object" || frame === null || frame.error !== undefined) return
    const type = (frame.type ?? "CALL").toUpperCase()
    const from = addr(frame.from)
    const to = addr(frame.to)
    const value = toBig(frame.value)
    if (!top && value > 0n && from !== undefined && to !== undefined && type !== "DELEGATECALL" && type !== "STATICCALL") {
      out.push({ from, to, value })
    }
    for (const child of frame.calls ?? []) walk(child, false)
  }
  walk(root as CallFrame, true)
  return out
}

interface ParityTrace {
  readonly type?: string
  readonly error?: string
  readonly traceAddress?: ReadonlyArray<number>
  readonly action?: { readonly from?: string; readonly to?: string; readonly value?: string; readonly callType?: string; readonly address?: string; readonly refundAddress?: string; readonly balance?: string }
}

/** Value-moving internal calls of a `trace_transaction` result (children of a reverted call are dropped too). */
export const fromParityTraces = (traces: unknown): Array<InternalTransfer> => {
  if (!Array.isArray(traces)) return []
  const failed: Array<string> = []
  const out: Array<InternalTransfer> = []
  for (const t of traces as ReadonlyArray<ParityTrace>) {
    const path = (t.traceAddress ?? []).join(",")
    if (t.error !== undefined) {
      failed.push(path)
      continue
    }
    if (failed.some((f) => path === f || path.startsWith(f === "" ? "" : `${f},`))) continue
    if ((t.traceAddress ?? []).length === 0) continue
    const a = t.action ?? {}
    if (t.type === "suicide") {
      const from = addr(a.address)
      const to = addr(a.refundAddress)
      const value = toBig(a.balance)
      if (from && to && value > 0n) out.push({ from, to, value })
      continue
    }
    if (t.type !== "call" || (a.callType !== undefined && a.callType !== "call")) continue
    const from = addr(a.from)
    const to = addr(a.to)
    const value = toBig(a.value)
    if (from && to && value > 0n) out.push({ from, to, value })
  }
  return out
}

/** Whether a JSON-RPC error means the node does not offer the method (as opposed to a failure of this call). */
export const isMethodMissing = (error: { readonly code?: number; readonly message?: string }) =>
  error.code === -32601 || error.code === -32004 || /method .*(not found|does not exist|not available|not supported)|unsupported method|unknown method/i.test(error.message ?? "")
