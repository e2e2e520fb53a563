/**
 * A fix for @electric-sql/pglite-socket 0.2.17 with several client connections.
 *
 * PGlite is one PostgreSQL session. The socket server queues every wire message of every connection and keeps a
 * connection's messages together only while a transaction is open. Outside a transaction, the messages of two
 * connections' extended-protocol queries (Parse, Bind, Describe, Execute … Sync) interleave on that one session, so
 * one connection's Parse replaces the other's unnamed statement and its Execute fails with `portal "" does not
 * exist` (seen as SqlErrors under concurrent load, e.g. the block listener next to HTTP requests).
 *
 * This replaces the queue's scheduler: once a connection starts an extended-protocol sequence, only its messages
 * run until its Sync (or a simple Query / Terminate) — exactly as inside a transaction. A connection that goes away
 * mid-sequence releases it.
 */

interface QueuedMessage {
  readonly handlerId: number
  readonly message: Uint8Array
  readonly resolve: (bytes: number) => void
  readonly reject: (error: unknown) => void
  readonly onData: (data: Uint8Array) => void
}

interface QueryQueue {
  queue: Array<QueuedMessage>
  processing: boolean
  lastHandlerId: number | null
  db: {
    isInTransaction: () => boolean
    runExclusive: <T>(f: () => Promise<T>) => Promise<T>
    execProtocolRawStream: (message: Uint8Array, options: { onRawData: (data: Uint8Array) => void }) => Promise<unknown>
  }
  processQueue: () => Promise<void>
  clearQueueForHandler: (handlerId: number) => void
}

const code = (c: string) => c.charCodeAt(0)
/** Parse, Bind, Describe, Execute, Close, Flush: inside a sequence that only Sync ends. */
const EXTENDED = new Set(["P", "B", "D", "E", "C", "H"].map(code))
/** Sync, simple Query, Terminate: the connection's sequence is over. */
const ENDS = new Set(["S", "Q", "X"].map(code))

export const sequenceConnections = (server: unknown) => {
  const q = (server as { queryQueue: QueryQueue }).queryQueue
  let owner: number | null = null

  q.processQueue = async function (this: QueryQueue) {
    if (this.processing || this.queue.length === 0) return
    this.processing = true
    try {
      while (this.queue.length > 0) {
        const pinned = this.db.isInTransaction() && this.lastHandlerId !== null ? this.lastHandlerId : owner
        let item: QueuedMessage | undefined
        if (pinned !== null) {
          const i = this.queue.findIndex((m) => m.handlerId === pinned)
          // The pinned connection's next message has not arrived yet: wait for it (its enqueue restarts us).
          if (i === -1) break
          item = this.queue.splice(i, 1)[0]
        } else {
          item = this.queue.shift()
        }
        if (!item) break
        const type = item.message[0] ?? 0
        let bytes = 0
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length
                item.onData(data)
              }
            })
          )
        } catch (error) {
          owner = null
          item.reject(error)
          continue
        }
        owner = ENDS.has(type) ? null : EXTENDED.has(type) ? item.handlerId : owner
        this.lastHandlerId = item.handlerId
        item.resolve(bytes)
      }
    } finally {
      this.processing = false
    }
  }

  const clear = q.clearQueueForHandler.bind(q)
  q.clearQueueForHandler = (handlerId: number) => {
    clear(handlerId)
    if (owner === handlerId) {
      owner = null
      void q.processQueue()
    }
  }
}
