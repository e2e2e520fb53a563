/**
 * The playbook-live actor (singleton). While an event is LIVE it consumes `chain.tx`, keeps the running metrics of
 * the event's window (State.ts) and publishes a snapshot on `console.playbook` at most once per
 * PLAYBOOK_LIVE_PUBLISH_MS, and only when it changed. Its state is transient: at the start of a life, and whenever
 * the LIVE event changes, it is rebuilt from the stored records of the window (messages delivered again after a
 * restart are counted once: the state is keyed by record). When the event completes it stops publishing.
 * With PLAYBOOK_AUTO_LIVE it also moves a SCHEDULED event whose time has come to LIVE (actor `auto`).
 */
import { Effect } from "effect"
import { isFlowCategory } from "../../schema/records"
import { CONSOLE_STREAMS } from "../../schema/ws"
import { STREAMS } from "../../schema/streams"
import { Chain } from "../../server/domains/chain/Chain"
import { Playbook } from "../../server/domains/playbook/Playbook"
import { Bus } from "../../server/platform/infra/Bus"
import { loopActor } from "../../server/platform/actors/Actor"
import type { ActorHandle } from "../../server/platform/actors/Registry"
import { INSTANCE as CONSUMER } from "../../server/platform/Instance"
import { ChainStreamMessage, isRetraction, LIVE_GROUP } from "./Protocol"
import { apply, emptyState, type LiveState, recordKey, retract, snapshot } from "./State"

/** Snapshots kept in the stream (a resuming client gets the newest). */
const KEPT = 100
const AUTO_LIVE_EVERY_MS = 5_000

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const bus = yield* Bus
    const pb = yield* Playbook
    const chain = yield* Chain
    const publishMs = Math.max(100, pb.config.livePublishMs)
    let state: LiveState | null = null
    let seq = 0
    let lastPublish = 0
    let lastAuto = 0

    const rebuild = (eventId: number) =>
      Effect.gen(function* () {
        const row = yield* pb.found(eventId).pipe(Effect.orDie)
        const w = pb.windowOf(row)
        const s = emptyState({ eventId, title: row.title, ts: w.ts, from: w.whole.from, to: w.whole.to })
        for (const r of yield* chain.recordsIn(w.whole))
          if (isFlowCategory(r.category)) apply(s, { key: recordKey(r), id: r.id, tx_hash: r.tx_hash, ts: r.ts.getTime(), wallet: r.wallet, wallet_label: r.wallet_label, token: r.token, symbol: r.symbol, category: r.category, usd: r.usd })
        const [last] = yield* bus.tail(CONSOLE_STREAMS.playbook, 1)
        const n = last ? /^live:(\d+):(\d+)$/.exec(String(last.payload.messageId)) : null
        seq = n && Number(n[1]) === eventId ? Number(n[2]) : 0
        yield* Effect.logInfo("playbook-live state rebuilt").pipe(Effect.annotateLogs({ event_id: eventId, records: s.seen.size }))
        return s
      })

    /** Follows the LIVE event: rebuilds for a new one, drops the state when none is LIVE. */
    const follow = Effect.gen(function* () {
      const now = yield* pb.now
      let live = yield* pb.live
      if (live === null && pb.config.autoLive && now - lastAuto >= AUTO_LIVE_EVERY_MS) {
        lastAuto = now
        const due = (yield* pb.all).find((r) => r.status === "SCHEDULED" && r.ts.getTime() <= now && pb.windowOf(r).whole.to > now)
        if (due) {
          yield* pb.setStatus(due.id, "LIVE", "auto").pipe(Effect.catchAll((e) => Effect.logInfo(`auto-live of ${due.id} skipped: ${e._tag}`)))
          live = yield* pb.live
        }
      }
      if (live === null) state = null
      else if (state === null || state.eventId !== live.id) state = yield* rebuild(live.id)
    })

    const publishIfDue = Effect.gen(function* () {
      const now = yield* pb.now
      if (state === null || !state.dirty || now - lastPublish < publishMs) return
      seq += 1
      yield* bus.publish(CONSOLE_STREAMS.playbook, { messageId: `live:${state.eventId}:${seq}`, ...snapshot(state, now) }, KEPT)
      state.dirty = false
      lastPublish = now
      actor.handled()
    })

    yield* bus.ensureGroup(STREAMS.chainTx, LIVE_GROUP, "$")
    yield* follow
    let lastFollow = yield* pb.now
    let pending = true
    while (true) {
      actor.heartbeat()
      // Own pending entries first (what this consumer held when its previous life ended), then new ones.
      const entries = pending
        ? yield* bus.readPending({ stream: STREAMS.chainTx, group: LIVE_GROUP, consumer: CONSUMER, count: 256 })
        : yield* bus.read({ stream: STREAMS.chainTx, group: LIVE_GROUP, consumer: CONSUMER, count: 256, blockMs: Math.min(publishMs, 1000) })
      if (pending && entries.length === 0) pending = false
      const now = yield* pb.now
      if (now - lastFollow >= publishMs || entries.length > 0) {
        yield* follow
        lastFollow = now
      }
      for (const entry of entries) {
        const m = ChainStreamMessage.safeParse(entry.payload)
        if (m.success && state !== null) {
          const msg = m.data
          if (isRetraction(msg)) retract(state, recordKey(msg))
          else if (isFlowCategory(msg.category))
            apply(state, {
              key: recordKey(msg), id: msg.id, tx_hash: msg.tx_hash, ts: Date.parse(msg.ts), wallet: msg.wallet, wallet_label: msg.wallet_label,
              token: msg.token, symbol: msg.symbol, category: msg.category, usd: msg.usd
            })
        }
      }
      if (entries.length > 0) yield* bus.ack(STREAMS.chainTx, LIVE_GROUP, entries.map((e) => e.id))
      yield* publishIfDue
    }
  })

export const PlaybookLiveActor = loopActor({ name: "playbook-live", singleton: true, run: life })
