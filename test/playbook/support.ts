/**
 * Helpers of the playbook tests: run the domain's services at a fixed time, in a service test (`startServices`) or
 * a test app — each call with the playbook's services built afresh (no cache kept from one call to the next).
 */
import { readFileSync } from "node:fs"
import { Clock, Effect } from "effect"
import { PlaybookLive } from "../../server/domains/playbook/Layer"
import type { ManagedRuntime } from "effect"
import type { Chain } from "../../server/domains/chain/Chain"
import type { TestPlatform } from "../support/serviceTest"

/** A clock stopped at `ms` (the services read the time through Effect's Clock). */
export const fixedClock = (ms: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => ms,
  currentTimeMillis: Effect.sync(() => ms),
  unsafeCurrentTimeNanos: () => BigInt(ms) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => BigInt(ms) * 1_000_000n),
  sleep: () => Effect.void
})

type Services = import("effect").Layer.Layer.Success<typeof PlaybookLive> | TestPlatform | Chain
/** A service test or a test app: a runtime with the platform and what the playbook's layer needs beside it. */
type Runs = { readonly runtime: ManagedRuntime.ManagedRuntime<TestPlatform | Chain, unknown> }

/** Runs `effect` with the playbook's services, on the platform of `app`, at time `at` (ms). */
export const runAt = <A, E>(app: Runs, at: number, effect: Effect.Effect<A, E, Services>) =>
  app.runtime.runPromise(effect.pipe(Effect.provide(PlaybookLive), Effect.withClock(fixedClock(at))) as Effect.Effect<A, E, never>)

/** Runs `effect` and returns its failure's tag (or "success"). */
export const failureOf = <A, E extends { _tag: string }>(app: Runs, at: number, effect: Effect.Effect<A, E, Services>) =>
  runAt(app, at, effect.pipe(Effect.match({ onFailure: (e) => e._tag, onSuccess: () => "success" })))

/** Events of a category in the shipped calendar whose window (24 h before to 48 h after) has ended by now. */
export const shippedPastEvents = (category: string) =>
  (JSON.parse(readFileSync("data/playbook-calendar.json", "utf8")) as { events: Array<{ category: string; timestamp: string }> }).events
    .filter((e) => e.category === category && Date.parse(e.timestamp) + 48 * 3_600_000 <= Date.now()).length
