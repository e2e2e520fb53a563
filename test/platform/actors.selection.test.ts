/**
 * WHALE_ACTORS: an `actors` process runs the actors it names (or all but those named with a leading `-`), so the
 * alert path, say, can run in processes of its own; a name the program does not have stops the start, naming it.
 */
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { startApp, type TestApp } from "../support/harness"

const ALERT_PATH = ["alert-fanout", "alert-events", "notifier", "alert-retrier"]

describe("WHALE_ACTORS", () => {
  let app: TestApp | undefined
  afterAll(async () => {
    await app?.close()
  })

  it("runs only the named actors", async () => {
    // Without the bot role: the messenger bot is that role's, not an actor WHALE_ACTORS selects.
    app = await startApp({ env: { WHALE_ROLES: "http,actors", WHALE_ACTORS: ALERT_PATH.join(","), DEMO_HISTORY_BLOCKS: "0" } })
    const names = await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.snapshot).pipe(Effect.map((all) => all.map((a) => a.name))))
    expect([...names].sort()).toEqual([...ALERT_PATH].sort())
    // The process still serves (its http role) and says so.
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200)
  })

  it("refuses a name the program does not have", async () => {
    await expect(startApp({ env: { WHALE_ACTORS: "-notifier,-no-such-actor" } })).rejects.toThrow(/WHALE_ACTORS names unknown actor\(s\) no-such-actor; known: mail-outbox, /)
  })
})
