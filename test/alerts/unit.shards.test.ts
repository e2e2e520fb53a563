/** Shard assignment (matching/Shard.ts, platform/actors/Shards.ts) and the ALERT_SHARDS setting. */
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { AlertsConfig } from "../../server/domains/alerts/Config"
import { ownsUser, shardOf, shardsOf } from "../../server/domains/alerts/matching/Shard"
import { assignedMember } from "../../server/platform/actors/Shards"

const shardsSetting = (raw: string | undefined) =>
  Effect.runPromiseExit(Effect.map(AlertsConfig, (c) => c.shards).pipe(
    Effect.provide(AlertsConfig.Default),
    Effect.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(raw === undefined ? [] : [["ALERT_SHARDS", raw]]))))
  ))

describe("shards of the subscription index", () => {
  it("puts every user in exactly one shard, user_id mod N, spread evenly", () => {
    for (const n of [1, 2, 3, 4, 7, 64]) {
      const counts = new Array<number>(n).fill(0)
      for (let user = 1; user <= 10_000; user++) {
        const k = shardOf(user, n)
        expect(k).toBe(user % n)
        counts[k]!++
        expect(shardsOf(n).filter((s) => ownsUser(s, user))).toEqual([{ index: k, count: n }])
      }
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1)
    }
  })

  it("refuses a shard count that is not a positive integer", () => {
    expect(() => shardOf(5, 0)).toThrow(RangeError)
    expect(() => shardOf(5, 1.5)).toThrow(RangeError)
  })

  it("gives shards to live members evenly, the same answer whatever order they are seen in", () => {
    expect(assignedMember(3, [])).toBeNull()
    for (const members of [[0], [0, 1], [2, 0, 1], [3, 1, 0, 2], [5, 9]]) {
      const perMember = new Map<number, number>()
      for (let k = 0; k < 8; k++) {
        const m = assignedMember(k, members)!
        expect(members).toContain(m)
        expect(assignedMember(k, [...members].reverse())).toBe(m)
        perMember.set(m, (perMember.get(m) ?? 0) + 1)
      }
      expect(perMember.size).toBe(members.length)
      expect(Math.max(...perMember.values())).toBeLessThanOrEqual(Math.ceil(8 / members.length))
    }
    // A member gone: its shards go to the others, no shard to no one.
    expect([0, 1, 2, 3].map((k) => assignedMember(k, [0, 2]))).toEqual([0, 2, 0, 2])
  })

  it("reads ALERT_SHARDS as an integer from 1 to 64, 1 by default, with a clear error otherwise", async () => {
    expect(await shardsSetting(undefined)).toEqual(Exit.succeed(1))
    expect(await shardsSetting("4")).toEqual(Exit.succeed(4))
    expect(await shardsSetting("64")).toEqual(Exit.succeed(64))
    for (const bad of ["0", "65", "-2", "two", "1.5"]) {
      const exit = await shardsSetting(bad)
      expect(Exit.isFailure(exit), bad).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : ""), bad).toMatch(/ALERT_SHARDS/)
    }
  })
})
