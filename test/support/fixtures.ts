/**
 * The shared real-world fixtures live next to the repository (`../shared/fixtures`) and are read in place.
 *
 * `requireFixtures` is how a test asks for them: when they are missing it throws under CI (a CI run without
 * fixtures must fail, loudly), and elsewhere returns `available: false` with a reason so the suite skips.
 *
 *   const fx = requireFixtures("eth-mainnet/blocks_17173049_17173050")
 *   describe.skipIf(!fx.available)(`replay${fx.skipNote}`, () => { … })
 */
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
export const FIXTURES_ROOT = resolve(REPO_ROOT, "../shared/fixtures")

export const fixturePath = (...parts: ReadonlyArray<string>): string => join(FIXTURES_ROOT, ...parts)

export interface FixtureCheck {
  readonly available: boolean
  /** Why the fixtures are unavailable ("" when they are there). */
  readonly reason: string
  /** " (skipped: <reason>)" to append to a suite name, or "". */
  readonly skipNote: string
}

const inCi = () => {
  const ci = process.env.CI
  return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false"
}

export const requireFixtures = (...relativePaths: ReadonlyArray<string>): FixtureCheck => {
  const missing = relativePaths.map((p) => fixturePath(p)).filter((p) => !existsSync(p))
  if (missing.length === 0) return { available: true, reason: "", skipNote: "" }
  const reason = `fixtures not found: ${missing.join(", ")} (the shared fixtures are expected at ${FIXTURES_ROOT})`
  if (inCi()) throw new Error(`${reason}. CI is set, so this is a failure: provide the fixtures to the CI job.`)
  console.warn(`[fixtures] skipping: ${reason}`)
  return { available: false, reason, skipNote: ` (skipped: ${reason})` }
}
