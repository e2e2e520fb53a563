/**
 * Runs the bad-input generator against a live app: every operation of `/openapi.json` gets its share of the budget,
 * sent with the credentials its guard wants (so cases reach validation and the handler, not only the guard). Each
 * answer is classified; the run's figures are returned for the test (and `npm run fuzz`) to print and assert.
 */
import { bearer, createUser, login } from "../support/auth"
import type { TestApp } from "../support/harness"
import { rawRequest, type RawResponse } from "../support/rawHttp"
import { badCase, type Case, operationsOf, Rng } from "./generator"

/** Statuses a bad request may get: each is documented (README "Failure behaviour"). */
export const DOCUMENTED_4XX = new Set([400, 401, 403, 404, 405, 408, 409, 413, 415, 422, 429])
/**
 * What uWebSockets.js answers by itself, before any of our code runs, to a request it cannot parse (README "Runtime"):
 * 400 (framing), 431 (headers over UWS_HTTP_MAX_HEADERS_SIZE), 505 (a request line whose version part it cannot read,
 * e.g. one carrying a NUL). Such an answer has none of our headers (every reply of ours carries X-Request-Id).
 */
export const UWS_OWN = new Set([400, 431, 505])
const answeredByUws = (res: RawResponse) => res.status > 0 && res.headers["x-request-id"] === undefined

export interface Finding {
  readonly op: string
  readonly label: string
  readonly status: number
  readonly body: string
  readonly reproduce: string
}

export interface FuzzFigures {
  seed: number
  operations: number
  cases: number
  byStatus: Record<string, number>
  serverErrors: number
  /** Answers uWS wrote itself (400, 431 or 505, without our headers). */
  byUws: number
  undocumented: number
  noAnswer: number
  /** What the closed/timed-out cases were (all framing-broken on purpose, or they are findings). */
  noAnswerKinds: Record<string, number>
  crashes: number
  findings: Array<Finding>
  ms: number
}

interface Credentials {
  token: string
  key: string
}

const email = "fuzz-admin@example.com"

/** A whale-tier admin with a session and an API key; re-made when a fuzz case revoked either. */
export const makeCredentials = async (app: TestApp): Promise<Credentials> => {
  const existing = await app.query<{ id: number }>("SELECT id FROM users WHERE email = $1", [email])
  if (existing.length === 0) await createUser(app, { email, tier: "whale", admin: true })
  const { token } = await login(app, email, undefined, { "x-forwarded-for": "10.255.0.1" })
  const res = await fetch(`${app.url}/api/keys/create`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(token), "x-forwarded-for": "10.255.0.1" },
    body: JSON.stringify({ name: "fuzz" })
  })
  if (res.status !== 200) throw new Error(`key creation failed: ${res.status} ${await res.text()}`)
  const { key } = (await res.json()) as { key: string }
  return { token, key }
}

const stillValid = async (app: TestApp, c: Credentials) => {
  const [me, usage] = await Promise.all([
    fetch(`${app.url}/auth/me`, { headers: bearer(c.token) }),
    fetch(`${app.url}/api/v1/usage`, { headers: { "x-api-key": c.key } })
  ])
  await Promise.all([me.arrayBuffer(), usage.arrayBuffer()])
  return me.status === 200 && (usage.status === 200 || usage.status === 429)
}

const withIdentity = (guard: string, c: Credentials, rng: Rng): Record<string, string> => {
  if (guard === "api-key") return rng.chance(0.9) ? { "x-api-key": c.key } : {}
  if (guard === "anon") return rng.chance(0.2) ? bearer(c.token) : {}
  return rng.chance(0.9) ? bearer(c.token) : {}
}

const curlOf = (port: number, c: Case) =>
  `method=${c.method} target=${JSON.stringify(c.rawTarget ? c.rawTarget.toString("latin1") : c.target).slice(0, 300)} ` +
  `headers=${JSON.stringify(c.headers).slice(0, 200)} body=${c.body ? JSON.stringify(c.body.subarray(0, 200).toString("latin1")) : "none"}` +
  (c.truncate ? " (truncated)" : "") + ` port=${port}`

/** Cases whose framing is broken on purpose: the server may close the connection instead of answering. */
const framingBroken = (c: Case) =>
  c.truncate === true || c.rawTarget !== undefined || "content-length" in c.headers || "transfer-encoding" in c.headers ||
  "x-bad-bytes" in c.headers

export interface FuzzOptions {
  readonly seed: number
  readonly cases: number
  readonly maxBodyBytes: number
  readonly concurrency?: number
}

export const fuzzHttp = async (app: TestApp, options: FuzzOptions): Promise<FuzzFigures> => {
  const started = Date.now()
  const doc = (await (await fetch(`${app.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> }
  const ops = operationsOf(doc)
  const rng = new Rng(options.seed)
  let creds = await makeCredentials(app)
  const figures: FuzzFigures = {
    seed: options.seed, operations: ops.length, cases: 0, byStatus: {}, serverErrors: 0, byUws: 0, undocumented: 0, noAnswer: 0, noAnswerKinds: {}, crashes: 0, findings: [], ms: 0
  }
  const perOp = Math.max(1, Math.ceil(options.cases / ops.length))
  // Build every case first (a fixed sequence for the seed), then send them a few at a time.
  const all: Array<{ op: string; guard: string; c: Case; idRng: number }> = []
  for (const op of ops) {
    for (let i = 0; i < perOp; i++) all.push({ op: `${op.method} ${op.path}`, guard: op.guard, c: badCase(rng, op, options.maxBodyBytes), idRng: rng.int(2 ** 31) })
  }
  const record = (op: string, c: Case, res: RawResponse) => {
    figures.cases++
    const key = res.status <= 0 ? (res.status === 0 ? "closed" : "timeout") : String(res.status)
    figures.byStatus[key] = (figures.byStatus[key] ?? 0) + 1
    const body = res.body.subarray(0, 300).toString("utf8")
    const finding = (why: string) => figures.findings.push({ op, label: `${why}: ${c.label}`, status: res.status, body, reproduce: curlOf(app.port, c) })
    if (answeredByUws(res)) {
      figures.byUws++
      if (!UWS_OWN.has(res.status)) finding("uWS's own answer, of a status not documented")
    } else if (res.status >= 500) {
      figures.serverErrors++
      finding("5xx")
    } else if (res.status <= 0) {
      figures.noAnswer++
      const kind = `${res.status === 0 ? "closed" : "timeout"} ${c.label.replace(/=.*/, "").replace(/^(headers \S+).*/, "$1")}`
      figures.noAnswerKinds[kind] = (figures.noAnswerKinds[kind] ?? 0) + 1
      if (!framingBroken(c)) finding("no answer")
    } else if (res.status >= 400 && !DOCUMENTED_4XX.has(res.status)) {
      figures.undocumented++
      finding("undocumented status")
    } else if (res.status >= 400 && c.method !== "HEAD") {
      // A documented error carries the error body: {"detail": …}.
        let ok = false
      try {
        const body = JSON.parse(res.body.toString("utf8")) as object
        // MCP speaks JSON-RPC: its errors are JSON-RPC error objects (spec of the protocol), everything else {detail}.
        ok = "detail" in body || (op.endsWith(" /mcp") && "error" in body && "jsonrpc" in body)
      } catch {
        ok = false
      }
      if (!ok) {
        figures.undocumented++
        finding("error without a JSON detail body")
      }
    }
  }
  const concurrency = options.concurrency ?? 4
  let next = 0
  const worker = async () => {
    while (next < all.length) {
      const item = all[next++]!
      const identity = withIdentity(item.guard, creds, new Rng(item.idRng))
      const c: Case = { ...item.c, headers: { ...identity, ...item.c.headers } }
      const res = await rawRequest(app.port, { method: c.method, target: c.rawTarget ?? c.target, headers: c.headers, ...(c.body ? { body: c.body } : {}), ...(c.truncate ? { truncate: true } : {}),
        // uWS neither answers nor closes a request line or header with bytes it cannot parse: it drops the connection
        // at its idle timeout (test/faults/slow-clients.test.ts holds that bound); no need to wait for it here.
        timeoutMs: framingBroken(c) ? 1_000 : 5_000 })
      record(item.op, c, res)
      if (figures.cases % 100 === 0) {
        // Alive, and the credentials still work (a case may have logged out, revoked the key or changed the tier).
        const health = await fetch(`${app.url}/healthz`).then((r) => r.status, () => 0)
        if (health !== 200) figures.crashes++
        if (!(await stillValid(app, creds).catch(() => false))) creds = await makeCredentials(app)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const health = await fetch(`${app.url}/healthz`).then((r) => r.status, () => 0)
  if (health !== 200) figures.crashes++
  figures.ms = Date.now() - started
  return figures
}

export const printFigures = (name: string, f: FuzzFigures) => {
  const statuses = Object.entries(f.byStatus).sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}:${n}`).join(" ")
  console.log(
    `[fuzz ${name}] seed ${f.seed} · ${f.operations} operations · ${f.cases} cases in ${f.ms} ms · 5xx ${f.serverErrors} · by uWS itself ${f.byUws} · ` +
      `crashes ${f.crashes} · undocumented ${f.undocumented} · closed/timeout ${f.noAnswer} · statuses ${statuses}`
  )
  console.log(`  closed/timeout by kind: ${JSON.stringify(f.noAnswerKinds)}`)
  for (const x of f.findings.slice(0, 40)) console.log(`  ${x.status} ${x.op} — ${x.label}\n    ${x.body.replace(/\s+/g, " ").slice(0, 200)}\n    ${x.reproduce}`)
}
