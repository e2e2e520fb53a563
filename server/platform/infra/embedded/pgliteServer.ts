/**
 * The embedded PostgreSQL: PGlite served over the PostgreSQL wire protocol on 127.0.0.1, in its own process so
 * its single-threaded query engine never blocks the HTTP server. Started by `server/platform/infra/Sql.ts` when no
 * DATABASE_URL is set. Prints one JSON line `{"ready":true,"port":N}` on stdout, exits when its parent goes away
 * (stdin closes) or on SIGTERM/SIGINT, closing the database cleanly. A data directory is locked for the process's
 * lifetime (embedded/Lock.ts): when another live process holds it, this one prints `{"locked":true,"message":…}`
 * and exits with code 3 without opening a file.
 *
 * argv: <dataDir | "memory://"> <maxConnections>
 */
import { mkdirSync } from "node:fs"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { acquireLock, DatabaseLocked } from "./Lock"
import { sequenceConnections } from "./sequencedQueue"

const [dataDir = "memory://", maxConnectionsArg = "20"] = process.argv.slice(2)
let lock: ReturnType<typeof acquireLock> | null = null
if (!dataDir.startsWith("memory://")) {
  mkdirSync(dataDir, { recursive: true })
  // One writer per directory: taken before PGlite opens a file, held until exit (see Lock.ts).
  try {
    lock = acquireLock(dataDir)
  } catch (e) {
    if (!(e instanceof DatabaseLocked)) throw e
    process.stdout.write(JSON.stringify({ locked: true, message: e.message }) + "\n")
    process.exit(3)
  }
  process.on("exit", () => lock?.release())
}

const db = await PGlite.create(dataDir)
const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: Number(maxConnectionsArg) })
// Several connections share PGlite's one session: keep each connection's extended-protocol query together.
sequenceConnections(server)
await server.start()
const port = Number(server.getServerConn().split(":").pop())
lock?.listening("127.0.0.1", port)
process.stdout.write(JSON.stringify({ ready: true, port }) + "\n")

let stopping = false
const stop = async (code: number) => {
  if (stopping) return
  stopping = true
  try {
    await server.stop()
    await db.close()
  } finally {
    lock?.release()
    process.exit(code)
  }
}
process.on("SIGTERM", () => void stop(0))
process.on("SIGINT", () => void stop(0))
process.stdin.on("end", () => void stop(0))
process.stdin.on("error", () => void stop(0))
process.stdin.resume()
