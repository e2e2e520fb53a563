/**
 * The fan-out decides cooldowns part by part (`partsByAlert`): every alert's matches in one part and in their order
 * (its cooldown gate decides them in order), parts of about the size asked, nothing lost or repeated.
 */
import { expect, it } from "vitest"
import type { NewDelivery } from "../../server/domains/alerts/delivery/Rows"
import { partsByAlert } from "../../server/domains/alerts/matching/Fanout"

const item = (alertId: number, n: number): NewDelivery => ({
  alertId, userId: 1, type: "whale_trade", recordKey: `tx:${alertId}:${n}`, title: "t", summary: "s", data: {}, channels: ["console"],
  eventAt: "2026-11-28T00:00:00.000Z", status: "pending"
})

it("keeps an alert's matches together and in order, in parts of about the size asked", () => {
  // 300 alerts with 1 to 7 matches each, interleaved as a block's records would bring them.
  const items: Array<NewDelivery> = []
  for (let n = 0; n < 7; n++) for (let a = 0; a < 300; a++) if (n < 1 + (a % 7)) items.push(item(a, n))
  items.push(...Array.from({ length: 250 }, (_, n) => item(999, 100 + n)))
  const parts = partsByAlert(items, 100)
  expect(parts.flat().map((i) => i.recordKey).sort()).toEqual(items.map((i) => i.recordKey).sort())
  const partOf = new Map<number, number>()
  parts.forEach((p, k) => {
    for (const i of p) {
      expect(partOf.get(i.alertId!) ?? k).toBe(k)
      partOf.set(i.alertId!, k)
    }
    // Only an alert with more matches than a part holds makes a bigger part, alone.
    if (p.length > 100) expect(new Set(p.map((i) => i.alertId)).size).toBe(1)
  })
  for (const a of [0, 6, 150, 999]) {
    const own = parts.flat().filter((i) => i.alertId === a).map((i) => i.recordKey)
    expect(own).toEqual(items.filter((i) => i.alertId === a).map((i) => i.recordKey))
  }
  // Full parts: a part closes only when the next alert's matches would not fit in it.
  for (let k = 0; k + 1 < parts.length; k++) {
    const next = parts[k + 1]!
    expect(parts[k]!.length + next.filter((i) => i.alertId === next[0]!.alertId).length).toBeGreaterThan(100)
  }
})
