/**
 * Per-type cooldowns (Throttle.ts), shared by every fan-out process: Kv gates (`alerts:cooldown:<alert>`, holding the
 * last pass in block time and the record that passed, so a redelivered record passes again), decided in order in
 * one step per round. A match inside its alert's cooldown is only counted, and the alert's next delivery says how
 * many it folded (a noisy alert costs a counter, not a row per match). Time is the record's block time, so a replay
 * decides the same way; after a restart of the embedded store the alert's `last_fired_at` is the floor.
 */
import { Effect } from "effect"
import { Kv } from "../../../platform/infra/Kv"
import type { NewDelivery } from "../delivery/Rows"
import { DEFAULT_COOLDOWNS } from "../Throttle"
import { AlertIndex, type AlertIndexShape } from "./AlertIndex"

/** The cooldowns of one index's alerts (`lastFiredOf`: its alerts' last fire as loaded, the gates' floor). */
export const makeCooldowns = (index: Pick<AlertIndexShape, "lastFiredOf">) =>
  Effect.gen(function* () {
    const kv = yield* Kv

    return {
      /**
       * The items that go on: fresh ones as they are, those that folded others with the count in their data (`folded`),
       * those inside their cooldown dropped. `extras`: matches already folded into an item at match time.
       */
      decide: Effect.fn("AlertCooldowns.decide")(function* (items: ReadonlyArray<NewDelivery>, extras: ReadonlyMap<NewDelivery, number>) {
        // One gate per alert and time: the further matches of an alert at the same block time are held whatever the
        // first one's answer (a block matches a broad alert many times), counted with it as `extra` (most of them
        // already at match time, see `Folds`).
        type Gate = { first: NewDelivery; at: number; extra: number }
        const gates: Array<Gate> = []
        const byAlert = new Map<number, Array<Gate>>()
        const folded = new Set<NewDelivery>()
        // A round's items share a few block times: each text parsed once.
        const times = new Map<string, number>()
        for (const i of items) {
          const seconds = DEFAULT_COOLDOWNS[i.type as keyof typeof DEFAULT_COOLDOWNS] ?? 0
          if (i.alertId === null || seconds <= 0) continue
          let at = times.get(i.eventAt)
          if (at === undefined) {
            const parsed = Date.parse(i.eventAt)
            times.set(i.eventAt, at = Number.isFinite(parsed) ? parsed : Date.now())
          }
          const own = byAlert.get(i.alertId)
          const gate = own?.find((g) => g.at === at)
          if (gate !== undefined) {
            gate.extra++
            folded.add(i)
            continue
          }
          const fresh = { first: i, at, extra: extras.get(i) ?? 0 }
          if (own === undefined) byAlert.set(i.alertId, [fresh])
          else own.push(fresh)
          gates.push(fresh)
        }
        if (gates.length === 0) return items
        const answers = yield* kv.passGates(gates.map((g) => ({
          key: `alerts:cooldown:${g.first.alertId}`, id: g.first.recordKey, at: g.at, extra: g.extra,
          cooldownMs: DEFAULT_COOLDOWNS[g.first.type as keyof typeof DEFAULT_COOLDOWNS] * 1000, knownLast: index.lastFiredOf(g.first.alertId!)
        })))
        const verdicts = new Map(gates.map((g, k) => [g.first, answers[k]!] as const))
        return items.flatMap((i): Array<NewDelivery> => {
          if (folded.has(i)) return []
          const held = verdicts.get(i) ?? 0
          if (held < 0) return []
          if (held === 0) return [i]
          const data = { ...i.data, folded: held }
          return [{ ...i, data, dataJson: JSON.stringify(data) }]
        })
      })
    } as const
  })

export class AlertCooldowns extends Effect.Service<AlertCooldowns>()("app/AlertCooldowns", {
  dependencies: [AlertIndex.Default],
  effect: Effect.flatMap(AlertIndex, makeCooldowns)
}) {}
