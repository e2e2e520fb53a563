/**
 * A progress bar for long operator commands, on stderr (stdout stays for data): redrawn in place on a terminal,
 * a line every few seconds otherwise (logs, CI), and a last line when done.
 *   [#########---------------]  38%  760/2000 blocks · 1,204 records · 41.3 blocks/s · ETA 30s
 */
const WIDTH = 24

const duration = (seconds: number) => {
  if (!Number.isFinite(seconds)) return "–"
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
}

export interface Progress {
  readonly advance: (blocks: number, records: number) => void
  readonly done: () => void
}

export const progressBar = (total: number, out: NodeJS.WriteStream = process.stderr, now = () => Date.now()): Progress => {
  const started = now()
  const tty = out.isTTY === true
  let blocks = 0
  let records = 0
  let drawn = 0

  const line = () => {
    const elapsed = Math.max(0.001, (now() - started) / 1000)
    const rate = blocks / elapsed
    const filled = total === 0 ? WIDTH : Math.round((WIDTH * blocks) / total)
    const percent = total === 0 ? 100 : Math.floor((100 * blocks) / total)
    return `[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${String(percent).padStart(3)}%  ${blocks}/${total} blocks` +
      ` · ${records.toLocaleString("en-US")} records · ${rate.toFixed(1)} blocks/s · ETA ${blocks >= total ? "0s" : duration((total - blocks) / rate)}`
  }
  const draw = (final: boolean) => {
    const t = now()
    if (!final && t - drawn < (tty ? 100 : 2_000)) return
    drawn = t
    out.write(tty ? `\r${line()}\x1b[K${final ? "\n" : ""}` : `${line()}\n`)
  }
  return {
    advance: (b, r) => {
      blocks += b
      records += r
      draw(false)
    },
    done: () => draw(true)
  }
}
