/**
 * Bad-input generator driven by `/openapi.json`: for each operation it builds a plausible request from the declared
 * schemas (so the case reaches validation and the handler), then breaks one thing — a wrong type, a missing or extra
 * field, a huge or negative number, a long, NUL-carrying or non-UTF-8 string, an array for a scalar, a nested depth
 * bomb, a wrong content type, a truncated or oversize body, duplicate query keys, an out-of-range path parameter.
 * Deterministic for a seed: a failure is reproduced with `FUZZ_SEED=<seed>`.
 */

/** A small, fast, seeded PRNG (mulberry32). */
export class Rng {
  #s: number
  constructor(seed: number) {
    this.#s = seed >>> 0
  }
  next(): number {
    this.#s = (this.#s + 0x6d2b79f5) >>> 0
    let t = this.#s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(n: number): number {
    return Math.floor(this.next() * n)
  }
  pick<T>(xs: ReadonlyArray<T>): T {
    return xs[this.int(xs.length)]!
  }
  chance(p: number): boolean {
    return this.next() < p
  }
}

export type JsonSchema = {
  type?: string | Array<string>
  properties?: Record<string, JsonSchema>
  required?: Array<string>
  items?: JsonSchema
  anyOf?: Array<JsonSchema>
  oneOf?: Array<JsonSchema>
  allOf?: Array<JsonSchema>
  enum?: Array<unknown>
  const?: unknown
  format?: string
  pattern?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  minItems?: number
  default?: unknown
}

export interface Parameter {
  readonly name: string
  readonly in: "path" | "query"
  readonly required: boolean
  readonly schema: JsonSchema
}

export interface Operation {
  readonly method: string
  readonly path: string
  readonly guard: string
  readonly parameters: ReadonlyArray<Parameter>
  /** Media types the body may have, with its schema; absent when the route takes no declared body. */
  readonly body?: { readonly types: ReadonlyArray<string>; readonly schema: JsonSchema }
}

export const operationsOf = (doc: { paths: Record<string, Record<string, any>> }): Array<Operation> =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const content = op.requestBody?.content as Record<string, { schema: JsonSchema }> | undefined
      const types = content ? Object.keys(content) : []
      return {
        method: method.toUpperCase(),
        path,
        guard: String(op["x-guard"] ?? "anon"),
        parameters: (op.parameters ?? []) as Array<Parameter>,
        ...(content ? { body: { types, schema: content[types[0]!]!.schema } } : {})
      }
    })
  )

// ---- plausible values from a schema ---------------------------------------------------------------------------

const sampleString = (rng: Rng, s: JsonSchema): string => {
  if (s.format === "email") return `fuzz${rng.int(1e6)}@example.com`
  if (s.format === "uri" || s.format === "url") return "https://example.com/x"
  if (s.format === "date-time") return new Date(1_700_000_000_000 + rng.int(1e9)).toISOString()
  if (s.format === "date") return "2026-01-15"
  if (s.pattern === "^0x[0-9a-fA-F]{40}$") return "0x" + "ab".repeat(20)
  if (s.pattern && /\\d/.test(s.pattern)) return String(rng.int(1000))
  const min = s.minLength ?? 1
  const max = Math.min(s.maxLength ?? 16, Math.max(min, 16))
  const n = min + rng.int(Math.max(1, max - min + 1))
  let out = ""
  for (let i = 0; i < n; i++) out += "abcdefghijklmnopqrstuvwxyz0123456789"[rng.int(36)]
  return out
}

export const sample = (rng: Rng, s: JsonSchema | undefined, depth = 0): unknown => {
  if (!s || depth > 6) return null
  if (s.const !== undefined) return s.const
  if (s.enum) return rng.pick(s.enum)
  if (s.default !== undefined && rng.chance(0.3)) return s.default
  const alts = s.anyOf ?? s.oneOf
  if (alts && alts.length > 0) return sample(rng, rng.pick(alts), depth + 1)
  if (s.allOf && s.allOf.length > 0) return sample(rng, s.allOf[0], depth + 1)
  const type = Array.isArray(s.type) ? rng.pick(s.type.filter((t) => t !== "null").length ? s.type.filter((t) => t !== "null") : s.type) : s.type
  switch (type) {
    case "string":
      return sampleString(rng, s)
    case "integer": {
      const lo = Math.max(s.minimum ?? 0, -1e6)
      const hi = Math.min(s.maximum ?? 100, lo + 1000)
      return lo + rng.int(Math.max(1, hi - lo + 1))
    }
    case "number":
      return Math.max(s.minimum ?? 0, 0) + rng.next() * 100
    case "boolean":
      return rng.chance(0.5)
    case "null":
      return null
    case "array":
      return Array.from({ length: Math.max(s.minItems ?? 0, rng.int(3)) }, () => sample(rng, s.items, depth + 1))
    case "object":
    default: {
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(s.properties ?? {})) {
        if ((s.required ?? []).includes(k) || rng.chance(0.5)) out[k] = sample(rng, v, depth + 1)
      }
      return out
    }
  }
}

// ---- the bad values -------------------------------------------------------------------------------------------

const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth)
const deepObject = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth)

/** Values of the wrong kind, in JSON bodies and as strings in paths and queries. */
export const BAD_VALUES: ReadonlyArray<unknown> = [
  null, true, false, 0, -1, -0.5, 1.5, 1e308, -1e308, 2 ** 53 + 2, -(2 ** 63), 9_007_199_254_740_993, "", " ",
  "0", "-1", "NaN", "Infinity", "-Infinity", "1e999", "99999999999999999999999999", "0x10", "1_000", "٣",
  "\u0000", "a\u0000b", "\ud800", "\uffff", "😀".repeat(50), "<script>alert(1)</script>", "' OR 1=1 --", "%00",
  "../../etc/passwd", "\r\nX-Injected: 1", "a".repeat(10_000), [], [1, 2], ["a"], {}, { $gt: "" }, { __proto__: { x: 1 } },
  [[[[[[[[[[[]]]]]]]]]]]
]

export const BAD_PATH_SEGMENTS: ReadonlyArray<string> = [
  "-1", "0", "9007199254740993", "99999999999999999999999999999", "1e5", "1.5", "abc", "%00", "a%00b", "%ff", "%C3%28",
  "%E0%80%80", "%", "%zz", "..", ".", "%2e%2e", "%2F", "a".repeat(5_000), "%F0%9F%98%80", "null", "undefined",
  "__proto__", "constructor", "%20", "+", "0x1f", "-0", "%u0041"
]

export interface Case {
  readonly label: string
  readonly method: string
  /** Path and query as sent (already encoded; may hold raw bytes via `rawPath`). */
  readonly target: string
  /** Raw bytes for the request line when the target is not valid UTF-8. */
  readonly rawTarget?: Buffer
  readonly headers: Record<string, string>
  readonly body?: Buffer
  /** Send fewer body bytes than Content-Length says, then half-close. */
  readonly truncate?: boolean
}

/** Percent-encodes a value; a lone surrogate becomes its (invalid UTF-8) three bytes, as a careless client sends. */
const enc = (v: unknown) => {
  const text = typeof v === "string" ? v : JSON.stringify(v) ?? "null"
  try {
    return encodeURIComponent(text)
  } catch {
    return [...text].map((ch) => {
      const code = ch.charCodeAt(0)
      if (ch.length === 1 && code >= 0xd800 && code <= 0xdfff) {
        return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => "%" + b.toString(16).toUpperCase()).join("")
      }
      return encodeURIComponent(ch)
    }).join("")
  }
}

const fillPath = (rng: Rng, op: Operation, override?: { name: string; raw: string }) =>
  op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (override && override.name === name) return override.raw
    const p = op.parameters.find((x) => x.name === name && x.in === "path")
    return name === "rest" ? "app.js" : enc(sample(rng, p?.schema) ?? "1")
  })

const queryOf = (pairs: ReadonlyArray<[string, string]>) => (pairs.length ? "?" + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join("&") : "")

const plausibleQuery = (rng: Rng, op: Operation): Array<[string, string]> =>
  op.parameters.filter((p) => p.in === "query" && (p.required || rng.chance(0.6))).map((p) => [p.name, enc(sample(rng, p.schema))])

/**
 * One bad request for an operation. `oversizeBytes` is the server's body cap: the oversize case goes just past it.
 */
export const badCase = (rng: Rng, op: Operation, oversizeBytes: number): Case => {
  const json = { "content-type": "application/json" }
  const baseBody = op.body ? (sample(rng, op.body.schema) as Record<string, unknown>) : undefined
  const pathParams = op.parameters.filter((p) => p.in === "path")
  const queryParams = op.parameters.filter((p) => p.in === "query")
  type Kind = "path" | "query" | "dupQuery" | "extraQuery" | "body" | "bodyRaw" | "contentType" | "truncate" | "oversize" | "headers" | "rawTarget"
  const kinds: Array<Kind> = ["headers", "extraQuery", "rawTarget"]
  if (pathParams.length) kinds.push("path", "path", "path")
  if (queryParams.length) kinds.push("query", "query", "dupQuery")
  if (op.body || op.method === "POST") kinds.push("body", "body", "body", "bodyRaw", "contentType", "truncate", "oversize")
  const kind = rng.pick(kinds)
  const path = () => fillPath(rng, op)
  const withBody = (body: unknown, headers: Record<string, string> = json) =>
    ({ headers, body: Buffer.from(JSON.stringify(body) ?? "null") })

  switch (kind) {
    case "path": {
      const p = rng.pick(pathParams)
      const raw = rng.chance(0.6) ? rng.pick(BAD_PATH_SEGMENTS) : enc(rng.pick(BAD_VALUES))
      return { label: `path ${p.name}=${raw.slice(0, 40)}`, method: op.method, target: fillPath(rng, op, { name: p.name, raw }) + queryOf(plausibleQuery(rng, op)), headers: {} }
    }
    case "query": {
      const p = rng.pick(queryParams)
      const value = rng.pick(BAD_VALUES)
      const pairs = plausibleQuery(rng, op).filter(([k]) => k !== p.name)
      pairs.push([p.name, enc(value)])
      return { label: `query ${p.name}=${JSON.stringify(value)?.slice(0, 40)}`, method: op.method, target: path() + queryOf(pairs), headers: {} }
    }
    case "dupQuery": {
      const p = rng.pick(queryParams)
      const v = enc(sample(rng, p.schema))
      return { label: `duplicate query ${p.name}`, method: op.method, target: path() + queryOf([[p.name, v], [p.name, v], ...plausibleQuery(rng, op)]), headers: {} }
    }
    case "extraQuery": {
      const pairs = plausibleQuery(rng, op)
      pairs.push([rng.pick(["__proto__", "constructor", "x", "limit[]", "a[b]", "", "%00"]), enc(rng.pick(BAD_VALUES))])
      return { label: "extra query key", method: op.method, target: path() + queryOf(pairs), headers: {} }
    }
    case "body": {
      const props = Object.keys(op.body?.schema.properties ?? {})
      const body: Record<string, unknown> = { ...(baseBody ?? {}) }
      const mutation = rng.int(6)
      let label: string
      if (mutation === 0 && props.length) {
        const k = rng.pick(props)
        delete body[k]
        label = `body missing ${k}`
      } else if (mutation === 1) {
        body[rng.pick(["extra", "__proto__", "constructor", "id", "is_admin", "tier"])] = rng.pick(BAD_VALUES)
        label = "body extra field"
      } else if (mutation === 2) {
        const top = rng.pick([BAD_VALUES[rng.int(BAD_VALUES.length)], [body], "string", 42, null])
        return { label: `body is ${JSON.stringify(top)?.slice(0, 30)}`, method: op.method, target: path(), ...withBody(top) }
      } else if (props.length) {
        const k = rng.pick(props)
        const v = mutation === 3 ? [body[k]] : rng.pick(BAD_VALUES)
        body[k] = v
        label = `body ${k}=${JSON.stringify(v)?.slice(0, 40)}`
      } else {
        body.x = rng.pick(BAD_VALUES)
        label = "body x"
      }
      if (rng.chance(0.3) && op.body?.types.includes("application/x-www-form-urlencoded")) {
        const form = Object.entries(body).map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`).join("&")
        return { label: `${label} (form)`, method: op.method, target: path(), headers: { "content-type": "application/x-www-form-urlencoded" }, body: Buffer.from(form) }
      }
      return { label, method: op.method, target: path(), ...withBody(body) }
    }
    case "bodyRaw": {
      const which = rng.int(7)
      const raws: Array<[string, Buffer]> = [
        ["depth bomb array", Buffer.from(deepArray(rng.pick([1_000, 50_000, 200_000])))],
        ["depth bomb object", Buffer.from(deepObject(rng.pick([1_000, 50_000])))],
        ["non-UTF-8 bytes", Buffer.concat([Buffer.from('{"email":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x00]), Buffer.from('","password":"x"}')])],
        ["long string", Buffer.from(JSON.stringify({ ...(baseBody ?? {}), [Object.keys(op.body?.schema.properties ?? { x: 0 })[0] ?? "x"]: "x".repeat(Math.floor(oversizeBytes * 0.9)) }))],
        ["invalid JSON", Buffer.from(rng.pick(['{"a":', "{'a':1}", "nul", "[1,]", '{"a":1}}', "\u0000", '{"a":"\\ud800"}', "1e99999"]))],
        ["many keys", Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))))],
        ["duplicate keys", Buffer.from('{"email":"a@example.com","email":["x"],"password":1,"password":"correct horse battery"}')]
      ]
      const [label, body] = raws[which]!
      return { label: `body ${label}`, method: op.method, target: path(), headers: json, body }
    }
    case "contentType": {
      const type = rng.pick(["text/plain", "application/xml", "multipart/form-data; boundary=x", "application/json; charset=utf-16", "application/octet-stream", "", "application/x-www-form-urlencoded", "*/*", "application/json, text/plain"])
      const body = type === "application/x-www-form-urlencoded" ? Buffer.from("a=%ZZ&&=&b=%00") : Buffer.from(JSON.stringify(baseBody ?? {}))
      return { label: `content-type ${JSON.stringify(type)}`, method: op.method, target: path(), headers: type ? { "content-type": type } : {}, body }
    }
    case "truncate": {
      const full = Buffer.from(JSON.stringify(baseBody ?? { a: 1 }))
      return { label: "truncated body", method: op.method, target: path(), headers: json, body: full, truncate: true }
    }
    case "oversize":
      return { label: "oversize body", method: op.method, target: path(), headers: json, body: Buffer.alloc(oversizeBytes + 1 + rng.int(1000), 0x20) }
    case "headers": {
      const h = rng.pick<Record<string, string>>([
        { authorization: "Bearer " + "x".repeat(rng.int(3) * 3000) },
        { authorization: "Bearer a.b.c" },
        { authorization: "Basic Zm9vOmJhcg==" },
        { authorization: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0." },
        { cookie: "whale_token=%E0%A4%A; whale_token=x" },
        { cookie: "=;;;==;whale_token" },
        { "x-api-key": "wi_" + "z".repeat(100) },
        { "x-api-key": "" },
        { "x-request-id": "../../<script>" },
        { "x-request-id": "a".repeat(65) },
        { "x-bad-bytes": "a\u0001b\u007f" },
        { "x-forwarded-for": "not-an-ip, ::1, 999.1.1.1" },
        { accept: "application/xml" },
        { "content-length": "-1" },
        { "transfer-encoding": "chunked" }
      ])
      const extra = op.body ? withBody(baseBody ?? {}) : { headers: {} as Record<string, string> }
      return { label: `headers ${Object.keys(h).join(",")}`, method: op.method, target: path() + queryOf(plausibleQuery(rng, op)), headers: { ...extra.headers, ...h }, ...("body" in extra ? { body: extra.body } : {}) }
    }
    case "rawTarget": {
      // Bytes that are not UTF-8, a NUL and control bytes in the request line itself.
      const target = path()
      const bytes = Buffer.concat([Buffer.from(target), Buffer.from(rng.pick([[0xff, 0xfe], [0xc3, 0x28], [0x25, 0x00], [0x80], [0xe2, 0x82]]))])
      return { label: "raw non-UTF-8 target", method: op.method, target, rawTarget: bytes, headers: {} }
    }
  }
}
