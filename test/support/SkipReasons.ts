/**
 * A vitest reporter that prints, after the run, every suite and test that was skipped and why: the reason a suite
 * puts in its name (`… (skipped: DATABASE_URL not set)`, the fixtures' `skipNote`) or passes to `ctx.skip(note)`.
 * A skipped suite is listed once (not each of its tests). The default reporter prints only a count.
 */
import { relative } from "node:path"
import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node"

const REASON = /\(skipped: (.*)\)\s*$/

const describe = (entry: TestSuite | TestCase, root: string) => {
  const file = relative(root, entry.module.moduleId)
  const named = REASON.exec(entry.name)?.[1]
  const result = entry.type === "test" ? entry.result() : undefined
  const note = result?.state === "skipped" ? result.note : undefined
  const reason = named ?? note ?? (entry.options.mode === "todo" ? "todo" : "no reason given")
  return `  ↓ ${file} › ${entry.fullName.replace(REASON, "").trim()} — ${reason}`
}

export default class SkipReasons implements Reporter {
  private root = process.cwd()

  onInit(ctx: { config: { root: string } }) {
    this.root = ctx.config.root
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const lines: Array<string> = []
    for (const m of modules) {
      const skippedSuites = [...m.children.allSuites()].filter((s) => s.state() === "skipped")
      const inSkipped = (t: TestCase | TestSuite) => {
        for (let p = t.parent; p.type === "suite"; p = p.parent) if (skippedSuites.includes(p)) return true
        return false
      }
      for (const s of skippedSuites) if (!inSkipped(s)) lines.push(describe(s, this.root))
      for (const t of m.children.allTests("skipped")) if (!inSkipped(t)) lines.push(describe(t, this.root))
    }
    if (lines.length === 0) return
    process.stdout.write(`\nSkipped (${lines.length}):\n${lines.join("\n")}\n`)
  }
}
