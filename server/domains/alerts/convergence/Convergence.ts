/**
 * Convergence, over the window in the database (shared by every fan-out process, kept across restarts): a round's
 * buys of watched tokens are stored, the window of their tokens read back, each watching alert judged on it in
 * block-time order (`ConvergenceWindow`), and a fire taken in the database (at most one per alert, token and
 * window, whichever process asks; the firing record may take it again after a redelivery). Buys count from when an
 * alert watches their token; a reorg retraction takes its record's buys out.
 */
import { Effect } from "effect"
import type { AlertSpec, ConvergenceParams } from "../../../../schema/http/alerts"
import type { ChainTxMessage } from "../../../../schema/streams"
import { recordKeyOf, type NewDelivery } from "../delivery/Rows"
import { contentOfConvergence, shortAddress } from "../Format"
import { deliveryOf } from "../matching/Delivery"
import type { Sub } from "../matching/MatchIndex"
import { ConvergenceRepo, type ConvergenceBuy } from "./ConvergenceRepo"
import { ConvergenceWindow, MAX_WINDOW_MS, type Convergence } from "./Window"

/** A buy and the convergence alerts (live now) watching its token. */
export interface Buy {
  readonly m: ChainTxMessage
  /** Block time, epoch ms. */
  readonly at: number
  readonly subs: ReadonlyArray<Sub>
}

export class AlertConvergence extends Effect.Service<AlertConvergence>()("app/AlertConvergence", {
  dependencies: [ConvergenceRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ConvergenceRepo

    return {
      /** The deliveries of the fires a round's buys cause (their cooldowns are still to be decided). */
      judge: Effect.fn("AlertConvergence.judge")(function* (buys: ReadonlyArray<Buy>) {
        if (buys.length === 0) return [] as Array<NewDelivery>
        const rows = buys.map((b): ConvergenceBuy => ({ token: b.m.token, key: recordKeyOf(b.m), wallet: b.m.wallet, label: b.m.wallet_label, usd: b.m.usd ?? 0, at: b.at }))
        yield* repo.addBuys(rows)
        const times = buys.map((b) => b.at)
        const stored = yield* repo.buysOf([...new Set(rows.map((r) => r.token))], new Date(Math.min(...times) - MAX_WINDOW_MS), new Date(Math.max(...times)))
        const window = new ConvergenceWindow()
        const labels = new Map<string, string>()
        for (const r of stored) {
          window.add(r.token, r)
          if (r.label) labels.set(r.wallet, r.label)
        }
        const fires = new Map<string, { sub: Sub; buy: Buy; found: Convergence; params: ConvergenceParams }>()
        for (const buy of [...buys].sort((a, b) => a.at - b.at)) {
          for (const sub of buy.subs) {
            const params = (sub.spec as Extract<AlertSpec, { type: "convergence" }>).params
            const found = window.evaluate(sub.id, params, buy.m.token, buy.at)
            const key = `${sub.id}|${buy.m.token}`
            if (found !== null && !fires.has(key)) fires.set(key, { sub, buy, found, params })
          }
        }
        if (fires.size === 0) return []
        const taken = yield* repo.takeFires([...fires.values()].map((f) => ({
          alertId: f.sub.id, token: f.buy.m.token, at: f.buy.at, key: `conv:${recordKeyOf(f.buy.m)}`, windowMs: f.params.window_minutes * 60_000
        })))
        const out: Array<NewDelivery> = []
        for (const f of fires.values()) {
          const key = `conv:${recordKeyOf(f.buy.m)}`
          if (!taken.has(`${f.sub.id}|${key}`)) continue
          const content = contentOfConvergence(f.buy.m, {
            wallets: f.found.wallets, totalUsd: f.found.totalUsd, windowMinutes: f.params.window_minutes,
            labels: f.found.wallets.map((w) => labels.get(w) ?? shortAddress(w))
          })
          out.push(deliveryOf(f.sub, key, content, f.buy.m.ts))
        }
        return out
      }),

      /** A reorg retracted this record (its key): its buy leaves the window. */
      retract: Effect.fn("AlertConvergence.retract")((recordKey: string) => repo.retractBuys([recordKey])),

      /** Drops buys older than the longest window (and a little clock skew): they are of no use. */
      prune: Effect.fn("AlertConvergence.prune")(() => repo.pruneBuys(new Date(Date.now() - MAX_WINDOW_MS - 3_600_000)))
    } as const
  })
}) {}
