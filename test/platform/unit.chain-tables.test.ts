/**
 * The chain domain owns `whale_tx`: other domains read it through the `Chain` service. A statement outside
 * server/domains/chain that names it must be one of the listed joins with a roll-up or a domain's own table (one
 * plan each, kept where they are with a comment why); a new one fails here.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

/** Files outside the chain domain that still hold SQL on whale_tx, and why (see the comment at each statement). */
const ALLOWED = new Set([
  // Analytics reads records for its read models (edge hours, the records API); not moved yet: a follow-up.
  "server/domains/analytics/FlowsRepo.ts",
  "server/domains/analytics/TxRepo.ts",
  // The keyed export's pages (issue 29): whale_tx by id window joined with tracked_wallets, streamed; the same rows
  // as TxRepo's listing. Moves with TxRepo.
  "server/domains/analytics/HistoryRepo.ts",
  "server/domains/echo/BatchRepo.ts", // a read's books: holdings' live prices in the batch's one statement (as readPriced)
  "server/domains/echo/MarketRepo.ts", // pricing and stats join whale_tx with the analytics roll-up in one round trip
  "server/domains/echo/Repo.ts", // readPriced: holdings' live prices inside the portfolio's one statement
  "server/domains/playbook/FlowRepo.ts" // spans: roll-up hours UNION edge records, one plan (bench:playbook)
])

const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : []
  })

describe("whale_tx belongs to the chain domain", () => {
  it("is read in SQL only by the chain domain and the listed joins", () => {
    const offenders = [...files("server"), ...files("actors")]
      .filter((f) => !f.startsWith("server/domains/chain/") && !ALLOWED.has(f))
      .filter((f) => /\b(FROM|JOIN)\s+whale_tx\b/.test(readFileSync(f, "utf8")))
    expect(offenders).toEqual([])
  })
})
