/** zod at the edge: parse a value or fail with the spec's 422 body (`loc` starts with path/query/body). */
import { Effect } from "effect"
import type { z } from "zod"
import type { ValidationIssue } from "../../../schema/errors"
import { ValidationFailed } from "./Errors"

export type Location = "path" | "query" | "body" | "header"

const typeOf = (issue: z.core.$ZodIssue): string => {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "missing" : `${issue.expected}_type`
    case "too_small":
      return issue.origin === "string" ? "string_too_short" : issue.origin === "array" ? "too_short" : "greater_than_equal"
    case "too_big":
      return issue.origin === "string" ? "string_too_long" : issue.origin === "array" ? "too_long" : "less_than_equal"
    case "invalid_format":
      return issue.format === "regex" ? "string_pattern_mismatch" : "value_error"
    case "invalid_value":
      return "enum"
    case "unrecognized_keys":
      return "extra_forbidden"
    case "invalid_union":
      return "union_mismatch"
    default:
      return "value_error"
  }
}

export const toIssues = (where: Location, error: z.ZodError): ReadonlyArray<ValidationIssue> =>
  error.issues.flatMap((issue): ReadonlyArray<ValidationIssue> => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ type: "extra_forbidden", loc: [where, ...issue.path.map(pathKey), key], msg: "Extra inputs are not permitted", input: null }))
    }
    const missing = issue.code === "invalid_type" && issue.input === undefined
    return [{
      type: typeOf(issue),
      loc: [where, ...issue.path.map(pathKey)],
      msg: missing ? "Field required" : issue.message,
      input: issue.input === undefined ? null : issue.input
    }]
  })

const pathKey = (k: PropertyKey): string | number => (typeof k === "number" ? k : String(k))

/**
 * Where a NUL character hides in a value (PostgreSQL text cannot hold one: it would surface as a 500). Walks at most
 * `depth` levels: deeper values are left to the schema.
 */
const nulAt = (value: unknown, path: Array<string | number>, depth = 32): Array<string | number> | undefined => {
  if (typeof value === "string") return value.includes("\u0000") ? path : undefined
  if (depth === 0 || value === null || typeof value !== "object") return undefined
  for (const [k, v] of Object.entries(value)) {
    const found = nulAt(v, [...path, Array.isArray(value) ? Number(k) : k], depth - 1)
    if (found) return found
  }
  return undefined
}

export const validate = <S extends z.ZodType>(where: Location, schema: S, value: unknown): Effect.Effect<z.output<S>, ValidationFailed> => {
  const nul = nulAt(value, [where])
  if (nul) return Effect.fail(new ValidationFailed({ issues: [{ type: "string_pattern_mismatch", loc: nul, msg: "String should not contain NUL characters", input: null }] }))
  const result = schema.safeParse(value, { reportInput: true })
  return result.success ? Effect.succeed(result.data) : Effect.fail(new ValidationFailed({ issues: toIssues(where, result.error) }))
}

/** The same, outside Effect (WebSocket frames, CLI arguments, the metered fast path's query). */
export const validateSync = <S extends z.ZodType>(where: Location, schema: S, value: unknown):
  { ok: true; value: z.output<S> } | { ok: false; issues: ReadonlyArray<ValidationIssue> } => {
  const nul = nulAt(value, [where])
  if (nul) return { ok: false, issues: [{ type: "string_pattern_mismatch", loc: nul, msg: "String should not contain NUL characters", input: null }] }
  const result = schema.safeParse(value, { reportInput: true })
  return result.success ? { ok: true, value: result.data } : { ok: false, issues: toIssues(where, result.error) }
}
