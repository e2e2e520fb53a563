/**
 * Bad input on every route of `/openapi.json` (issue 18 §3): a fixed seed and a budget in CI, a longer run with
 * `npm run fuzz` (FUZZ_SEED, FUZZ_CASES). Zero 5xx, zero crashes, every error a documented 4xx with its JSON body.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { startApp, type TestApp } from "../support/harness"
import { QUIET_CHAIN } from "../support/whales"
import { fuzzHttp, printFigures } from "./run"

const SEED = Number(process.env.FUZZ_SEED ?? 18)
const CASES = Number(process.env.FUZZ_CASES ?? 1_200)
const MAX_BODY = 65_536

let app: TestApp
beforeAll(async () => {
  // Behind a proxy on loopback (the fuzzer's own requests name their client, so its cases do not throttle its setup).
  app = await startApp({ env: { ...QUIET_CHAIN, MAX_BODY_BYTES: String(MAX_BODY), TRUST_PROXY: "loopback" } })
})
afterAll(async () => {
  await app?.close()
})

it(`answers ${CASES} bad requests over every documented route with documented 4xx only (seed ${SEED})`, async () => {
  const figures = await fuzzHttp(app, { seed: SEED, cases: CASES, maxBodyBytes: MAX_BODY })
  printFigures("http", figures)
  expect(figures.cases).toBeGreaterThanOrEqual(CASES)
  expect(figures.operations).toBeGreaterThan(40)
  expect(figures.findings.map((f) => `${f.status} ${f.op} ${f.label}`)).toEqual([])
  expect(figures.serverErrors).toBe(0)
  expect(figures.crashes).toBe(0)
}, Number(process.env.FUZZ_TIMEOUT_MS ?? 240_000))
