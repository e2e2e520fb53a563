/**
 * The documentation's relative links resolve: every `[text](target)` in README.md, docs/**\/*.md and bench/*.md that
 * is not a URL names a file of the repository, and a `#fragment` on a Markdown target names one of its headings
 * (GitHub's anchors: lower-case, punctuation dropped, spaces to hyphens).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")

const markdownFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return markdownFiles(path)
    return name.endsWith(".md") ? [path] : []
  })

const docs = [
  join(root, "README.md"),
  ...markdownFiles(join(root, "docs")),
  ...readdirSync(join(root, "bench")).filter((n) => n.endsWith(".md")).map((n) => join(root, "bench", n))
]

/** The text outside fenced code blocks and inline code, where a link is a link. */
const prose = (text: string): string =>
  text
    .replace(/^```[\s\S]*?^```/gm, "")
    .replace(/`[^`\n]*`/g, "")

/** GitHub's heading anchor: lower-case, punctuation but `-` and `_` dropped, each space a hyphen. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_ -]/gu, "")
    .replace(/ /g, "-")

const anchors = (file: string): Set<string> => {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const line of readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "").split("\n")) {
    const m = /^#{1,6} (.+)$/.exec(line)
    if (!m) continue
    const base = slug(m[1]!)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

const links = (file: string): Array<string> =>
  [...prose(readFileSync(file, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)

describe("documentation links", () => {
  it("finds the pages", () => {
    expect(docs.map((f) => relative(root, f))).toEqual(expect.arrayContaining(["README.md", "docs/ARCHITECTURE.md"]))
  })

  for (const file of docs) {
    it(`${relative(root, file)}: every relative link resolves`, () => {
      const broken: Array<string> = []
      for (const link of links(file)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue
        const [path, fragment] = link.split("#") as [string, string | undefined]
        const target = path === "" ? file : resolve(dirname(file), decodeURI(path))
        if (!existsSync(target)) {
          broken.push(`${link}: no file ${relative(root, target)}`)
          continue
        }
        if (fragment !== undefined && target.endsWith(".md") && !anchors(target).has(fragment)) {
          broken.push(`${link}: no heading #${fragment} in ${relative(root, target)}`)
        }
      }
      expect(broken).toEqual([])
    })
  }
})
