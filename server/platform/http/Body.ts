/**
 * Request bodies: read with a byte cap (413 past it, connection not kept reading), each uWS chunk copied, then
 * parsed by content type: JSON, `application/x-www-form-urlencoded`, or raw bytes.
 */
import type { HttpResponse } from "uWebSockets.js"
import type { BodyKind } from "./Route"

export class BodyTooLarge extends Error {}
/** The body did not arrive whole within the deadline (a slow or stalled sender). */
export class BodyTimeout extends Error {}

/**
 * Collects the body. Resolves with the bytes, or rejects with `BodyTooLarge` as soon as the cap is passed
 * (the caller answers 413 and closes), or with `BodyTimeout` when the whole body has not arrived within
 * `timeoutMs` (the caller answers 408 and closes: uWS's idle timeout restarts with every byte, so a client
 * trickling a byte every few seconds would otherwise hold the connection forever). `res.onAborted` must already be
 * attached.
 */
export const readBody = (res: HttpResponse, maxBytes: number, declaredLength: number | undefined, timeoutMs = 0): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    if (declaredLength !== undefined && declaredLength > maxBytes) return reject(new BodyTooLarge())
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    const timer = timeoutMs > 0
      ? setTimeout(() => {
        if (done) return
        done = true
        reject(new BodyTimeout())
      }, timeoutMs)
      : undefined
    res.onData((chunk, isLast) => {
      if (done) return
      size += chunk.byteLength
      if (size > maxBytes) {
        done = true
        clearTimeout(timer)
        return reject(new BodyTooLarge())
      }
      chunks.push(Buffer.from(chunk.slice(0)))
      if (isLast) {
        done = true
        clearTimeout(timer)
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
      }
    })
  })

export type Parsed =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: "json_invalid" | "unsupported_media_type"; readonly message: string }

const mediaType = (contentType: string | undefined) => (contentType ?? "").split(";")[0]!.trim().toLowerCase()

/** Form fields as an object; a repeated field becomes an array. */
export const parseForm = (text: string): Record<string, string | Array<string>> => {
  const out: Record<string, string | Array<string>> = {}
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = out[k]
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]
  }
  return out
}

export const parseBody = (kind: BodyKind, contentType: string | undefined, raw: Buffer): Parsed => {
  if (kind === "raw") return { ok: true, value: raw }
  const type = mediaType(contentType)
  // An empty body is an empty object: a missing field then reports `["body", "<field>"]`.
  if (raw.length === 0) return { ok: true, value: {} }
  const asJson = type === "application/json" || type.endsWith("+json") || (type === "" && kind !== "form")
  const asForm = type === "application/x-www-form-urlencoded"
  if (asJson && kind !== "form") {
    try {
      return { ok: true, value: JSON.parse(raw.toString("utf8")) }
    } catch (e) {
      return { ok: false, reason: "json_invalid", message: `JSON decode error: ${(e as Error).message}` }
    }
  }
  if (asForm && kind !== "json") return { ok: true, value: parseForm(raw.toString("utf8")) }
  const expected = kind === "json" ? "application/json" : kind === "form" ? "application/x-www-form-urlencoded" : "application/json or application/x-www-form-urlencoded"
  return { ok: false, reason: "unsupported_media_type", message: `Content-Type must be ${expected}` }
}
