import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { intParam } from "../../schema/common"
import { parseBody } from "../../server/platform/http/Body"
import { Guard } from "../../server/platform/http/Guards"
import { redactQuery } from "../../server/platform/http/Redact"
import { headerBlock, Reply, staticHeaders } from "../../server/platform/http/Reply"
import { route } from "../../server/platform/http/Route"
import { compileRoutes } from "../../server/platform/http/Router"
import { toIssues } from "../../server/platform/http/Validate"

const r = (method: "GET" | "POST" | "PUT" | "DELETE", path: string) =>
  route({ method, path, summary: path }, { guard: Guard.anon, handler: () => Effect.succeed(null) })

describe("router", () => {
  const lookup = compileRoutes([
    r("GET", "/api/alerts"), r("POST", "/api/alerts"), r("PUT", "/api/alerts/{alert_id}"), r("DELETE", "/api/alerts/{alert_id}"),
    r("POST", "/api/alerts/mute"), r("GET", "/api/alerts/channels"), r("PUT", "/api/alerts/channels"),
    r("GET", "/api/picks2/exit-timing"), r("GET", "/api/picks2/exit-timing/{pick_id}"), r("GET", "/assets/*")
  ])

  it("prefers literal segments, then parameters", () => {
    expect(lookup("PUT", "/api/alerts/channels")).toMatchObject({ kind: "found", params: {} })
    expect(lookup("PUT", "/api/alerts/42")).toMatchObject({ kind: "found", params: { alert_id: "42" } })
    expect(lookup("GET", "/api/picks2/exit-timing/7")).toMatchObject({ kind: "found", params: { pick_id: "7" } })
  })

  it("reports the allowed methods of a known path, HEAD with GET", () => {
    expect(lookup("DELETE", "/api/alerts/channels")).toEqual({ kind: "wrong-method", allow: ["GET", "PUT", "HEAD"] })
    expect(lookup("GET", "/api/alerts/9")).toEqual({ kind: "wrong-method", allow: ["PUT", "DELETE"] })
    expect(lookup("HEAD", "/api/alerts")).toMatchObject({ kind: "found" })
  })

  it("matches prefixes and decodes parameters", () => {
    expect(lookup("GET", "/assets/app/main.js")).toMatchObject({ kind: "found", params: { "*": "app/main.js" } })
    expect(lookup("PUT", "/api/alerts/a%20b")).toMatchObject({ params: { alert_id: "a b" } })
    expect(lookup("GET", "/nope")).toEqual({ kind: "none" })
  })

  it("refuses the same method and path twice", () => {
    expect(() => compileRoutes([r("GET", "/x"), r("GET", "/x")])).toThrow(/declared twice/)
  })
})

describe("validation body", () => {
  it("reports missing fields and bad integers with loc and type", () => {
    const schema = z.object({ limit: intParam({ min: 1, max: 250, default: 60 }), email: z.string() })
    const result = schema.safeParse({ limit: "abc" }, { reportInput: true })
    expect(result.success).toBe(false)
    const issues = toIssues("query", result.error!)
    expect(issues).toContainEqual(expect.objectContaining({ loc: ["query", "email"], type: "missing", msg: "Field required" }))
    expect(issues.find((i) => i.loc[1] === "limit")).toMatchObject({ input: "abc" })
    expect(schema.safeParse({ email: "x" }).data?.limit).toBe(60)
    expect(schema.safeParse({ email: "x", limit: "251" }).success).toBe(false)
    expect(schema.safeParse({ email: "x", limit: "1.5" }).success).toBe(false)
  })
})

describe("bodies", () => {
  it("parses JSON and forms, rejects other types", () => {
    expect(parseBody("json-or-form", "application/json", Buffer.from('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } })
    expect(parseBody("json-or-form", "application/x-www-form-urlencoded; charset=utf-8", Buffer.from("a=1&b=2&b=3"))).toEqual({ ok: true, value: { a: "1", b: ["2", "3"] } })
    expect(parseBody("json", "application/x-www-form-urlencoded", Buffer.from("a=1"))).toMatchObject({ ok: false, reason: "unsupported_media_type" })
    expect(parseBody("form", "application/json", Buffer.from("{}"))).toMatchObject({ ok: false, reason: "unsupported_media_type" })
    expect(parseBody("raw", "anything", Buffer.from("xyz"))).toEqual({ ok: true, value: Buffer.from("xyz") })
  })
})

describe("log redaction", () => {
  it("hides secrets in query strings and keeps the rest", () => {
    expect(redactQuery("tf=24H&api_key=whk_live_secret&limit=5")).toBe("tf=24H&api_key=***&limit=5")
    expect(redactQuery("token=eyJ.abc&TOKEN=x&api%5Fkey=y")).toBe("token=***&TOKEN=***&api%5Fkey=***")
  })
})

describe("static header blocks", () => {
  it("joins a fixed list into one name and value that uWS writes as the same header lines", () => {
    const list = staticHeaders([["content-type", "application/json"], ["cache-control", "public, max-age=60"], ["x-data-license", "CC-BY-4.0"]])
    expect(headerBlock(list)).toEqual(["content-type", "application/json\r\ncache-control: public, max-age=60\r\nx-data-license: CC-BY-4.0"])
    expect(headerBlock([["content-type", "application/json"]])).toBeUndefined()
    expect(headerBlock(Reply.json({ a: 1 }).headers)).toEqual(["content-type", "application/json; charset=utf-8"])
    expect(headerBlock(Reply.json({ a: 1 }, 200, [["x-a", "1"]]).headers)).toBeUndefined()
  })

  it("refuses a name or value that could split the header block", () => {
    expect(() => staticHeaders([["x-a", "1\r\nset-cookie: a=b"]])).toThrow(/invalid static header/)
    expect(() => staticHeaders([["x-a\n", "1"]])).toThrow(/invalid static header/)
    expect(() => staticHeaders([["x a", "1"]])).toThrow(/invalid static header/)
  })
})
