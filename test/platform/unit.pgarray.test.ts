/**
 * Array literals for batched writes (server/domains/chain/PgArray.ts) are the text node-postgres would send for the same JS
 * array, including the elements that need quoting or escaping.
 */
import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
import { arrayLiteral, type ArrayElement } from "../../server/platform/infra/PgArray"

/** node-postgres's own conversion of a query parameter (not in its type declarations). */
const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as { prepareValue: (value: unknown) => unknown }

const asPg = (values: ReadonlyArray<ArrayElement>) => prepareValue(values.map((v) => (v === undefined ? null : v)))

describe("array literals", () => {
  it("match node-postgres for plain, quoted, escaped and missing elements", () => {
    const cases: ReadonlyArray<ReadonlyArray<ArrayElement>> = [
      [],
      ["0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", "WETH"],
      ['say "hi"', "back\\slash", '\\"', "a,b", "{x}", "NULL", "", " padded ", "ünï ☃", "line\nbreak"],
      [null, "x", undefined, null],
      [0, -1, 17173049, 1.5, 3.1000000000000005, 1e21, Number.NaN],
      [12345678901234567890n, "151553041876899159101915312117", "0.0848"]
    ]
    for (const values of cases) expect(arrayLiteral(values, (v) => v)).toBe(asPg(values))
  })

  it("reads each element through the picker", () => {
    const rows = [{ a: "x", n: 1 }, { a: 'q"', n: null }]
    expect(arrayLiteral(rows, (r) => r.a)).toBe('{"x","q\\""}')
    expect(arrayLiteral(rows, (r) => r.n)).toBe('{"1",NULL}')
  })
})
