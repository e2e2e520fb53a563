/**
 * Baseline for `npm run bench:api`: Fastify serving the same JSON bytes as the service — the public stats body, and
 * the keyed whale-index body behind @fastify/rate-limit on Redis (per X-API-Key, a day's window, one Lua call per
 * request, as the RedisStore does). argv: <port> <public json file> <keyed json file> <redis url> <key prefix>
 * @fastify/rate-limit's RedisStore expects an ioredis-style client (`defineCommand`); this adapter gives it one on
 * node-redis (ioredis is not a dependency here).
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import rateLimit from "@fastify/rate-limit"
import Fastify from "fastify"
import { createClient } from "redis"

const [port = "0", publicFile = "", keyedFile = "", redisUrl = "redis://127.0.0.1:6379", prefix = "bench:"] = process.argv.slice(2)
const publicBody = readFileSync(publicFile)
const keyedBody = readFileSync(keyedFile)

const client = createClient({ url: redisUrl })
await client.connect()

type Callback = (error: Error | null, result?: unknown) => void
/** Just what RedisStore uses of ioredis: `defineCommand(name, { numberOfKeys, lua })`, then `client[name](…keys, …args, cb)`. */
const ioredisLike: Record<string, unknown> = {
  defineCommand(name: string, { numberOfKeys, lua }: { numberOfKeys: number; lua: string }) {
    const sha = createHash("sha1").update(lua).digest("hex")
    ioredisLike[name] = (...args: Array<unknown>) => {
      const cb = args.pop() as Callback
      const tail = [String(numberOfKeys), ...args.map(String)]
      client.sendCommand(["EVALSHA", sha, ...tail])
        .catch((e: Error) => (e.message.startsWith("NOSCRIPT") ? client.sendCommand(["EVAL", lua, ...tail]) : Promise.reject(e)))
        .then((r) => cb(null, r), (e: Error) => cb(e))
    }
  }
}

const app = Fastify({ logger: false })
await app.register(rateLimit, { global: false, redis: ioredisLike, nameSpace: `${prefix}rl:` })
const headers = { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=60", "x-data-license": "CC-BY-4.0" }
app.get("/api/v1/public/stats", (_req, reply) => {
  reply.headers(headers).send(publicBody)
})
app.get("/api/v1/whale-index", {
  config: {
    rateLimit: { max: 1_000_000_000, timeWindow: 86_400_000, keyGenerator: (req) => String(req.headers["x-api-key"] ?? req.ip) }
  }
}, (_req, reply) => {
  reply.header("content-type", "application/json; charset=utf-8").send(keyedBody)
})
await app.listen({ port: Number(port), host: "127.0.0.1" })
process.stdout.write("ready\n")
const stop = () => void app.close().then(() => client.close()).finally(() => process.exit(0))
process.on("SIGINT", stop)
process.on("SIGTERM", stop)
