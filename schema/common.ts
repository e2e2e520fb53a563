/** Small zod building blocks used at every edge. */
import { z } from "zod"

const integerText = z.string().trim().regex(/^-?\d+$/, "Input should be a valid integer")

/** An integer given as a number or as a decimal string (path, query and form values arrive as strings). */
const integer = (target: z.ZodNumber) =>
  z.union([z.number().int(), integerText]).transform((v) => (typeof v === "number" ? v : Number.parseInt(v, 10))).pipe(target)

/**
 * What the API documents for each of these integers: an integer and its bounds. (How it parses — a number, or its
 * decimal text — is not what it is; the OpenAPI document reads this registry so `limit` shows `1..100`.)
 */
export const integerBounds = z.registry<{ readonly minimum?: number; readonly maximum?: number }>()

export const intLike = integer(z.number().int().safe()).register(integerBounds, {})

type IntegerSchema = ReturnType<typeof integer>

/** `intLike` with bounds and an optional default (for query parameters; with a default, callers may leave it out). */
export function intParam(opts: { min?: number; max?: number; default: number }): z.ZodDefault<z.ZodOptional<IntegerSchema>>
export function intParam(opts?: { min?: number; max?: number }): IntegerSchema
export function intParam(opts: { min?: number; max?: number; default?: number } = {}): IntegerSchema | z.ZodDefault<z.ZodOptional<IntegerSchema>> {
  let n = z.number().int().safe()
  if (opts.min !== undefined) n = n.min(opts.min)
  if (opts.max !== undefined) n = n.max(opts.max)
  const base = integer(n).register(integerBounds, {
    ...(opts.min !== undefined ? { minimum: opts.min } : {}),
    ...(opts.max !== undefined ? { maximum: opts.max } : {})
  })
  return opts.default === undefined ? base : base.optional().default(opts.default)
}

export const email = z.string().trim().toLowerCase().pipe(z.email({ message: "value is not a valid email address" }).max(254))

/** A 0x-prefixed 20-byte hex address, normalised to lower case. */
export const address = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, "value is not a valid Ethereum address")
  .transform((a) => a.toLowerCase())
