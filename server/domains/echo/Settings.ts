/**
 * Echo's admin settings (`echo_live`, `echo_free_preview`), kept in the database (echo_settings) and held in
 * memory by every process, re-read every ECHO_SETTINGS_POLL_MS (default 2 s): a change made through the admin
 * endpoint on any process takes effect on all of them within seconds (at once on the process that made it).
 * The gate reads memory only; a database outage keeps the last known values.
 */
import { Effect, Ref, Schedule } from "effect"
import type { EchoSettings as EchoSettingsWire } from "../../../schema/http/echo"
import { EchoConfig } from "./Config"
import { EchoRepo } from "./Repo"

export const DEFAULT_SETTINGS: EchoSettingsWire = { echo_live: true, echo_free_preview: false }

const fromRows = (rows: ReadonlyArray<{ key: string; value: unknown }>): EchoSettingsWire => {
  const get = (k: keyof EchoSettingsWire) => {
    const v = rows.find((r) => r.key === k)?.value
    return typeof v === "boolean" ? v : v === 1 || v === "1" || v === "true" ? true : v === 0 || v === "0" || v === "false" ? false : DEFAULT_SETTINGS[k]
  }
  return { echo_live: get("echo_live"), echo_free_preview: get("echo_free_preview") }
}

export class EchoSettings extends Effect.Service<EchoSettings>()("app/echo/EchoSettings", {
  dependencies: [EchoRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EchoRepo
    const config = yield* EchoConfig
    const current = yield* Ref.make<EchoSettingsWire>(DEFAULT_SETTINGS)
    const reload = repo.settings().pipe(Effect.flatMap((rows) => Ref.set(current, fromRows(rows))))
    yield* reload.pipe(Effect.catchAllCause((c) => Effect.logWarning("echo settings: first read failed; defaults until the next", c)))
    return {
      /** Re-reads the settings every ECHO_SETTINGS_POLL_MS, for ever: the module's `echo-settings` process. */
      follow: reload.pipe(
        Effect.catchAllCause((c) => Effect.logWarning("echo settings: re-read failed; keeping the last values", c)),
        Effect.repeat(Schedule.spaced(`${Math.max(100, config.settingsPollMs)} millis`)),
        Effect.asVoid
      ),
      get: Ref.get(current),
      update: Effect.fn("EchoSettings.update")(function* (patch: Partial<EchoSettingsWire>, by: number) {
        for (const [k, v] of Object.entries(patch)) if (v !== undefined) yield* repo.setSetting(k, v, by)
        yield* reload
        return yield* Ref.get(current)
      })
    } as const
  })
}) {}
