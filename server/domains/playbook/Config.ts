/**
 * The playbook's settings (its config slice):
 *   PLAYBOOK_CALENDAR_FILE     calendar upserted at start (default data/playbook-calendar.json; empty: none)
 *   PLAYBOOK_WINDOWS           per-category window overrides, JSON: {"exploit":{"pre_hours":6,"post_hours":72}}
 *   PLAYBOOK_AUTO_LIVE         move a SCHEDULED event whose time has come to LIVE automatically (default false:
 *                              the admin transition of spec §3.1 stays the rule)
 *   PLAYBOOK_METRICS_TTL_SECONDS  how long computed metrics of a past, not completed event are reused (default 900)
 *   PLAYBOOK_LIVE_PUBLISH_MS   smallest gap between two live snapshots on `playbook:live` (default 1000)
 *   PLAYBOOK_RUNNING_CACHE_SECONDS  metrics of a running window (the LIVE event, an open window) and the positioning
 *                              gauge are computed once per slot of this many seconds, as of the slot's start, and
 *                              shared by every request in it (default 5; 0: computed on every request, as of then)
 */
import { Config, ConfigError, Effect, Either } from "effect"
import { CATEGORIES, type EventCategory } from "../../../schema/http/playbook"
import type { WindowOverrides } from "./Spans"

const windows = Config.string("PLAYBOOK_WINDOWS").pipe(
  Config.withDefault("{}"),
  Config.mapOrFail((raw) => {
    const bad = (msg: string) => Either.left(ConfigError.InvalidData(["PLAYBOOK_WINDOWS"], msg))
    let doc: unknown
    try {
      doc = JSON.parse(raw)
    } catch {
      return bad("not valid JSON")
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return bad('expected an object like {"exploit":{"pre_hours":6,"post_hours":72}}')
    const out: { -readonly [K in EventCategory]?: { preHours: number; postHours: number } } = {}
    for (const [k, v] of Object.entries(doc)) {
      if (!(CATEGORIES as ReadonlyArray<string>).includes(k)) return bad(`unknown category ${k}; known: ${CATEGORIES.join(", ")}`)
      const w = v as { pre_hours?: unknown; post_hours?: unknown }
      const ok = (x: unknown) => typeof x === "number" && Number.isInteger(x) && x >= 1 && x <= 24 * 14
      if (!ok(w.pre_hours) || !ok(w.post_hours)) return bad(`${k}: pre_hours and post_hours must be whole hours from 1 to 336`)
      out[k as EventCategory] = { preHours: w.pre_hours as number, postHours: w.post_hours as number }
    }
    return Either.right(out as WindowOverrides)
  })
)

const settings = Config.all({
  calendarFile: Config.string("PLAYBOOK_CALENDAR_FILE").pipe(Config.withDefault("data/playbook-calendar.json")),
  windows,
  autoLive: Config.boolean("PLAYBOOK_AUTO_LIVE").pipe(Config.withDefault(false)),
  metricsTtlSeconds: Config.integer("PLAYBOOK_METRICS_TTL_SECONDS").pipe(Config.withDefault(900)),
  livePublishMs: Config.integer("PLAYBOOK_LIVE_PUBLISH_MS").pipe(Config.withDefault(1000)),
  runningCacheSeconds: Config.integer("PLAYBOOK_RUNNING_CACHE_SECONDS").pipe(
    Config.withDefault(5),
    Config.validate({ message: "PLAYBOOK_RUNNING_CACHE_SECONDS must be 0 to 300", validation: (n) => n >= 0 && n <= 300 })
  )
})
export class PlaybookConfig extends Effect.Service<PlaybookConfig>()("app/playbook/Config", { effect: settings }) {}
