/**
 * `Kv` on Redis (see `Kv.ts` for the contract). Counters are one Lua script per call, `INCR` + `EXPIRE … NX` for each
 * key (Redis ≥ 7.0): atomic, so exact across processes, and one command on the wire (a MULTI costs node-redis several
 * times more per call, which shows on hot paths such as the data API's quota). Lease renew/release are compare-and-act Lua scripts, sent by SHA with a fallback to the
 * source when the server's script cache does not have them (after a restart or `SCRIPT FLUSH`).
 */
import { Clock, Effect, Option } from "effect"
import { GATE_HELD_TTL_MS, GATE_SLACK_MS, SLOT_SLACK_MS, type KvShape } from "./KvShape"
import { evalScript, RedisClient, script } from "./Redis"

/** KEYS… counters, ARGV[1] ttl seconds[, ARGV[2] increment] → their new values (the expiry set only where there is none). */
const INCR_WINDOW = script(
  `local by = tonumber(ARGV[2] or '1') local out = {} for i, k in ipairs(KEYS) do out[i] = redis.call('INCRBY', k, by) redis.call('EXPIRE', k, ARGV[1], 'NX') end return out`
)
/** KEYS[1] lease, ARGV[1] holder, ARGV[2] ttl ms → 1 when extended. */
const RENEW = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`)
/** KEYS[1] lease, ARGV[1] holder → 1 when deleted. */
const RELEASE = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

/** KEYS pacing keys, ARGV[1] now, ARGV[1+i] gap of key i, ARGV[2+#KEYS] slack → ms to wait for the booked slot. */
const BOOK_SLOT = script(
  `local now = tonumber(ARGV[1]) local at = now ` +
  `for i, k in ipairs(KEYS) do local v = tonumber(redis.call('GET', k)) if v and v > at then at = v end end ` +
  `local slack = tonumber(ARGV[#KEYS + 2]) ` +
  `for i, k in ipairs(KEYS) do local nxt = at + tonumber(ARGV[i + 1]) redis.call('SET', k, string.format('%.0f', nxt), 'PX', string.format('%.0f', math.max(1, nxt - now + slack))) end ` +
  `return at - now`
)
/** KEYS pacing keys, ARGV[1] until, ARGV[2] now, ARGV[3] slack: each key's next free time pushed to at least until. */
const HOLD_UNTIL = script(
  `local u = tonumber(ARGV[1]) for i, k in ipairs(KEYS) do local v = tonumber(redis.call('GET', k)) ` +
  `if not v or v < u then redis.call('SET', k, ARGV[1], 'PX', string.format('%.0f', math.max(1, u - tonumber(ARGV[2]) + tonumber(ARGV[3])))) end end return 0`
)
/**
 * ARGV[1] key prefix, ARGV[2] gate slack ms, ARGV[3] held-count ttl ms, ARGV[4] the gates, one a line of tab-separated
 * key, at, cooldown, known last (-1: none), extra, id → per gate the held count when it passes, or -1 when it is held
 * (see KvShape.passGates). A gate is one key holding "<last pass ms>\t<held count>\t<id>" (two commands per gate:
 * thousands are decided per fan-out round); it lives for its cooldown and the slack, or for the held-count ttl while
 * it holds a count. A value of the earlier form "<last pass ms> <id>" is read with no held count. The gates are
 * packed in one argument (as separate arguments the client's encoding alone took over a second), so their keys are
 * built here from the prefix (a standalone Redis, as this service runs on; not Cluster).
 */
const PASS_GATES = script(
  `local prefix, slack, heldTtl, s = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] local out = {} local i = 0 local pos = 1 ` +
  `local find, sub = string.find, string.sub ` +
  `while pos <= #s do local e = find(s, '\\n', pos, true) or (#s + 1) ` +
  `local t1 = find(s, '\\t', pos, true) local t2 = find(s, '\\t', t1 + 1, true) local t3 = find(s, '\\t', t2 + 1, true) ` +
  `local t4 = find(s, '\\t', t3 + 1, true) local t5 = find(s, '\\t', t4 + 1, true) ` +
  `local g = prefix .. sub(s, pos, t1 - 1) local atText = sub(s, t1 + 1, t2 - 1) local at = tonumber(atText) ` +
  `local cd = tonumber(sub(s, t2 + 1, t3 - 1)) local known = tonumber(sub(s, t3 + 1, t4 - 1)) local extra = tonumber(sub(s, t4 + 1, t5 - 1)) ` +
  `local id = sub(s, t5 + 1, e - 1) pos = e + 1 i = i + 1 ` +
  `local v = redis.call('GET', g) local last, held, lid, lastText = nil, 0, nil, nil ` +
  `if v then local a = find(v, '\\t', 1, true) if a then local b = find(v, '\\t', a + 1, true) lastText = sub(v, 1, a - 1) ` +
  `held = tonumber(sub(v, a + 1, b - 1)) lid = sub(v, b + 1) else local sp = find(v, ' ', 1, true) lastText = sub(v, 1, sp - 1) lid = sub(v, sp + 1) end ` +
  `last = tonumber(lastText) end ` +
  `if lid == id then out[i] = 0 else ` +
  `if known >= 0 and (not last or known > last) then last = known lastText = string.format('%.0f', known) end ` +
  `if last and at - last < cd then held = held + 1 + extra ` +
  `redis.call('SET', g, lastText .. '\\t' .. held .. '\\t' .. (lid or ''), 'PX', string.format('%.0f', math.max(heldTtl, cd + slack))) out[i] = -1 ` +
  `else local keep = atText if last and last > at then keep = lastText end out[i] = held ` +
  `redis.call('SET', g, keep .. '\\t' .. extra .. '\\t' .. id, 'PX', string.format('%.0f', extra > 0 and math.max(heldTtl, cd + slack) or (cd + slack))) end end end ` +
  `return out`
)

/** A gate's key or id inside PASS_GATES's packed argument: no tab or newline. */
const packable = (text: string) => {
  if (text.includes("\t") || text.includes("\n")) throw new RangeError(`Kv: a gate key or id may not hold a tab or a newline: ${JSON.stringify(text)}`)
  return text
}

const positiveInteger = (what: string, n: number) => {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`Kv: ${what} must be a positive integer, got ${n}`)
  return String(n)
}

export const makeKvRedis = Effect.gen(function* () {
  const redis = yield* RedisClient
  const kvKey = (key: string) => redis.key(`kv:${key}`)
  const leaseKey = (name: string) => redis.key(`lease:${name}`)
  const send = <A>(op: string, args: ReadonlyArray<string>) => redis.run(op, (c) => c.sendCommand<A>(args))

  // Plain (no span): this is the data API's per-request quota count.
  const incrWindowAll = (keys: ReadonlyArray<string>, ttlSeconds: number): Effect.Effect<ReadonlyArray<number>> =>
    Effect.suspend(() => {
      const ttl = positiveInteger("ttlSeconds", ttlSeconds)
      if (keys.length === 0) return Effect.succeed([])
      return redis.run("EVALSHA incr window", (c) => evalScript<ReadonlyArray<number>>(c, INCR_WINDOW, keys.map(kvKey), [ttl]))
    })

  const unsafeIncrWindowAll = (keys: ReadonlyArray<string>, ttlSeconds: number, _now: number, by = 1): Promise<ReadonlyArray<number>> => {
    try {
      const args = by === 1 ? [positiveInteger("ttlSeconds", ttlSeconds)] : [positiveInteger("ttlSeconds", ttlSeconds), positiveInteger("by", by)]
      return keys.length === 0 ? Promise.resolve([]) : evalScript<ReadonlyArray<number>>(redis.client, INCR_WINDOW, keys.map(kvKey), args)
    } catch (e) {
      return Promise.reject(e)
    }
  }

  const incrWindow = (key: string, ttlSeconds: number) => Effect.map(incrWindowAll([key], ttlSeconds), (values) => values[0]!)

  const get = Effect.fn("KvRedis.get")(function* (key: string) {
    return Option.fromNullable(yield* send<string | null>("GET", ["GET", kvKey(key)]))
  })

  const set = Effect.fn("KvRedis.set")(function* (key: string, value: string, ttlSeconds?: number) {
    const expiry = ttlSeconds === undefined ? [] : ["EX", positiveInteger("ttlSeconds", ttlSeconds)]
    yield* send("SET", ["SET", kvKey(key), value, ...expiry])
  })

  const del = Effect.fn("KvRedis.del")(function* (key: string) {
    yield* send("DEL", ["DEL", kvKey(key)])
  })

  const ttl = Effect.fn("KvRedis.ttl")(function* (key: string) {
    return yield* send<number>("TTL", ["TTL", kvKey(key)])
  })

  const acquireLease = Effect.fn("KvRedis.acquireLease")(function* (name: string, holder: string, ttlMs: number) {
    const px = positiveInteger("ttlMs", ttlMs)
    const taken = yield* send<string | null>("SET NX PX", ["SET", leaseKey(name), holder, "NX", "PX", px])
    if (taken === "OK") return true
    // Held already: ours (re-entrant, extend it) or someone else's.
    return (yield* redis.run("EVALSHA renew", (c) => evalScript(c, RENEW, [leaseKey(name)], [holder, px]))) === 1
  })

  const renewLease = Effect.fn("KvRedis.renewLease")(function* (name: string, holder: string, ttlMs: number) {
    const px = positiveInteger("ttlMs", ttlMs)
    return (yield* redis.run("EVALSHA renew", (c) => evalScript(c, RENEW, [leaseKey(name)], [holder, px]))) === 1
  })

  const leaseRemainingMs = Effect.fn("KvRedis.leaseRemainingMs")(function* (name: string) {
    return Math.max(0, yield* send<number>("PTTL", ["PTTL", leaseKey(name)]))
  })

  const releaseLease = Effect.fn("KvRedis.releaseLease")(function* (name: string, holder: string) {
    return (yield* redis.run("EVALSHA release", (c) => evalScript(c, RELEASE, [leaseKey(name)], [holder]))) === 1
  })

  const bookSlot = (keys: ReadonlyArray<string>, gapsMs: ReadonlyArray<number>) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      keys.length === 0 ? Effect.succeed(0) : redis.run("EVALSHA book slot", (c) =>
        evalScript<number>(c, BOOK_SLOT, keys.map(kvKey), [String(now), ...gapsMs.map((g) => String(Math.max(0, Math.round(g)))), String(SLOT_SLACK_MS)])))

  const holdUntil = (keys: ReadonlyArray<string>, untilMs: number) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      keys.length === 0 ? Effect.void : Effect.asVoid(redis.run("EVALSHA hold until", (c) =>
        evalScript(c, HOLD_UNTIL, keys.map(kvKey), [String(Math.round(untilMs)), String(now), String(SLOT_SLACK_MS)]))))

  const passGates: KvShape["passGates"] = (gates) =>
    gates.length === 0 ? Effect.succeed([]) : Effect.suspend(() => {
      let packed = ""
      for (const g of gates) {
        packed += `${packable(g.key)}\t${Math.round(g.at)}\t${Math.max(0, Math.round(g.cooldownMs))}\t${g.knownLast === null ? -1 : Math.round(g.knownLast)}\t${g.extra ?? 0}\t${packable(g.id)}\n`
      }
      return redis.run("EVALSHA pass gates", (c) =>
        evalScript<ReadonlyArray<number>>(c, PASS_GATES, [], [kvKey(""), String(GATE_SLACK_MS), String(GATE_HELD_TTL_MS), packed]))
    })

  const connected = () => redis.client.isReady
  return { kind: "redis", bookSlot, holdUntil, passGates, incrWindow, incrWindowAll, unsafeIncrWindowAll, get, set, del, ttl, acquireLease, renewLease, leaseRemainingMs, releaseLease, ping: redis.ping, connected } satisfies KvShape
})
