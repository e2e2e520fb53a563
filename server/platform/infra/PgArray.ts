/**
 * PostgreSQL array literals for the `unnest($1::text[], …)` parameters of batched writes, one pass per column.
 * The text is what node-postgres builds from a JS array (every element double-quoted, `"` and `\` escaped with
 * a backslash, NULL unquoted), but node-postgres runs two regular-expression replaces on every element: with 19
 * columns per record that was the largest client-side cost of a batched insert. Here an element is scanned once
 * and only rewritten when it holds a character to escape.
 */
const NEEDS_ESCAPE = /["\\]/
const ESCAPED = /["\\]/g

export type ArrayElement = string | number | bigint | null | undefined

/** `{"a","b",NULL}` of `pick(item)` for each item; cast it in SQL (`$1::text[]`, `::numeric[]`, `::int[]`, …). */
export const arrayLiteral = <A>(items: ReadonlyArray<A>, pick: (item: A) => ArrayElement): string => {
  let out = "{"
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ","
    const value = pick(items[i]!)
    if (value === null || value === undefined) {
      out += "NULL"
    } else {
      const text = typeof value === "string" ? value : String(value)
      out += NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPED, "\\$&")}"` : `"${text}"`
    }
  }
  return `${out}}`
}
