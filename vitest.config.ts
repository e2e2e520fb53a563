import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Native addons (uWebSockets.js) and child processes (embedded PostgreSQL) want real processes, not threads.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Many apps and spawned servers run at once: each takes any free port for its /metrics listener.
    env: { METRICS_PORT: "0" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The default reporter counts skipped tests; SkipReasons lists them with their reasons.
    reporters: ["default", "./test/support/SkipReasons.ts"]
  }
})
