import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer, Redacted, Cause } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfig, contactEmailOf, runsActor } from "../../server/platform/Config"
import { EmailConfig } from "../../server/domains/email/Config"

const load = (env: Record<string, string>) =>
  Effect.runPromiseExit(
    AppConfig.pipe(Effect.provide(AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))))
  )

describe("configuration", () => {
  it("refuses to start in production without the secrets, naming them", async () => {
    const exit = await load({ NODE_ENV: "production", DATA_DIR: mkdtempSync(join(tmpdir(), "cfg-")), SESSION_SECRET: "s".repeat(32) })
    expect(Exit.isFailure(exit)).toBe(true)
    const text = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
    expect(text).toContain("INTERNAL_SECRET")
    expect(text).toContain("INBOUND_EMAIL_SECRET")
    expect(text).not.toContain("SESSION_SECRET,")
  })

  it("generates missing secrets once on the embedded default and keeps them in DATA_DIR", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"))
    const first = await load({ DATA_DIR: dir })
    const second = await load({ DATA_DIR: dir })
    if (!Exit.isSuccess(first) || !Exit.isSuccess(second)) throw new Error("config did not load")
    const a = Redacted.value(first.value.sessionSecret)
    expect(a.length).toBeGreaterThanOrEqual(32)
    expect(Redacted.value(second.value.sessionSecret)).toBe(a)
    expect(Redacted.value(first.value.internalSecret)).not.toBe(a)
    expect(JSON.parse(readFileSync(join(dir, "secrets.json"), "utf8")).SESSION_SECRET).toBe(a)
    expect(String(first.value.sessionSecret)).not.toContain(a)
  })

  it("generates the inbound e-mail secret like the others, and the e-mail workspace checks that one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"))
    const email = await Effect.runPromiseExit(
      EmailConfig.pipe(Effect.provide(EmailConfig.Default.pipe(
        Layer.provide(AppConfig.Default),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["DATA_DIR", dir]]))))
      )))
    )
    if (!Exit.isSuccess(email)) throw new Error("email config did not load")
    const kept = JSON.parse(readFileSync(join(dir, "secrets.json"), "utf8")).INBOUND_EMAIL_SECRET
    expect(kept.length).toBeGreaterThanOrEqual(32)
    expect(Redacted.value(email.value.inboundSecret)).toBe(kept)
  })

  it("publishes CONTACT_EMAIL, else a real sender address, never a placeholder", () => {
    expect(contactEmailOf("privacy@whales.example.org", "x <no-reply@localhost>")).toBe("privacy@whales.example.org")
    expect(contactEmailOf(undefined, "Whale Intelligence <hello@whales.io>")).toBe("hello@whales.io")
    expect(contactEmailOf(undefined, "ops@whales.io")).toBe("ops@whales.io")
    for (const placeholder of ["Whale Intelligence <no-reply@localhost>", "noreply@whales.io", "a@example.com", "a@box.local", "", "nobody"]) {
      expect(contactEmailOf(undefined, placeholder), placeholder).toBeNull()
    }
  })

  it("takes secrets from the environment over generated ones, and parses roles", async () => {
    const exit = await load({ DATA_DIR: mkdtempSync(join(tmpdir(), "cfg-")), SESSION_SECRET: "from-env-secret-value", WHALE_ROLES: "http, actors" })
    if (!Exit.isSuccess(exit)) throw new Error("config did not load")
    expect(Redacted.value(exit.value.sessionSecret)).toBe("from-env-secret-value")
    expect([...exit.value.roles]).toEqual(["http", "actors"])
  })

  it("parses WHALE_ACTORS: all, names to run, or names to leave out", async () => {
    const selection = async (raw?: string) => {
      const exit = await load({ DATA_DIR: mkdtempSync(join(tmpdir(), "cfg-")), ...(raw === undefined ? {} : { WHALE_ACTORS: raw }) })
      if (!Exit.isSuccess(exit)) throw new Error(`config did not load for ${raw}`)
      return exit.value.actorSelection
    }
    const all = await selection()
    expect(all).toEqual({ kind: "all" })
    expect(runsActor(all, "notifier")).toBe(true)
    const only = await selection(" alert-fanout, notifier ")
    expect(only).toEqual({ kind: "only", names: ["alert-fanout", "notifier"] })
    expect([runsActor(only, "notifier"), runsActor(only, "block-listener")]).toEqual([true, false])
    const except = await selection("-notifier,-alert-fanout")
    expect(except).toEqual({ kind: "except", names: ["notifier", "alert-fanout"] })
    expect([runsActor(except, "notifier"), runsActor(except, "block-listener")]).toEqual([false, true])
    for (const bad of ["notifier,-alert-fanout", "Notifier", "alert fanout"]) {
      const exit = await load({ DATA_DIR: mkdtempSync(join(tmpdir(), "cfg-")), WHALE_ACTORS: bad })
      expect(Exit.isFailure(exit), bad).toBe(true)
      expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").toContain("WHALE_ACTORS")
    }
  })

  it("rejects unknown roles and an invalid port", async () => {
    expect(Exit.isFailure(await load({ DATA_DIR: mkdtempSync(join(tmpdir(), "cfg-")), WHALE_ROLES: "http,web" }))).toBe(true)
    expect(Exit.isFailure(await load({ DATA_DIR: mkdtempSync(join(tmpdir(), "cfg-")), PORT: "70000" }))).toBe(true)
  })
})
