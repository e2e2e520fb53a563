/**
 * A real SMTP server for tests (smtp-server on 127.0.0.1, no TLS, no auth): every message the app sends is
 * received over the wire, parsed with mailparser, and kept for the test to read and follow its links.
 * `failNext(n, code)` refuses the next n recipients with an SMTP status (451 = try later, 550 = refused for good).
 * `hold()` keeps every message's DATA unanswered (the sender waits mid-send) until `release()`; `held()` counts them.
 */
import type { AddressInfo } from "node:net"
import { simpleParser } from "mailparser"
import { SMTPServer } from "smtp-server"
import { waitFor } from "./wait"

export interface ReceivedMail {
  readonly to: ReadonlyArray<string>
  readonly from: string
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly headers: ReadonlyMap<string, unknown>
  /** Every http(s) URL of the plain-text body, in order. */
  readonly links: ReadonlyArray<string>
}

export interface TestSmtp {
  readonly port: number
  readonly url: string
  readonly messages: ReadonlyArray<ReceivedMail>
  /** Refuse the next `n` recipients with this SMTP code. */
  readonly failNext: (n: number, code: number) => void
  /** Leave the end of DATA unanswered from now on: the sender is stuck mid-send until `release`. */
  readonly hold: () => void
  /** Answers the held messages (accepted) and stops holding. */
  readonly release: () => void
  /** Messages whose DATA arrived and is being held. */
  readonly held: () => number
  /** Resolves with the first message (received or yet to come) to `to` matching `match`; fails after the timeout. */
  readonly next: (to: string, match?: (m: ReceivedMail) => boolean, timeoutMs?: number) => Promise<ReceivedMail>
  /** Messages received by an address. */
  readonly to: (address: string) => ReadonlyArray<ReceivedMail>
  readonly close: () => Promise<void>
}

export const startSmtp = async (): Promise<TestSmtp> => {
  const messages: Array<ReceivedMail> = []
  const taken = new Set<ReceivedMail>()
  let failures = 0
  let failCode = 451
  let holding = false
  const held: Array<() => void> = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (failures > 0) {
        failures--
        return callback(Object.assign(new Error(failCode >= 500 ? "Mailbox unavailable" : "Try again later"), { responseCode: failCode }))
      }
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Array<Buffer> = []
      stream.on("data", (c: Buffer) => chunks.push(c))
      stream.on("end", () => {
        simpleParser(Buffer.concat(chunks)).then(
          (parsed) => {
            const text = parsed.text ?? ""
            messages.push({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              subject: parsed.subject ?? "",
              text,
              html: typeof parsed.html === "string" ? parsed.html : "",
              headers: parsed.headers as ReadonlyMap<string, unknown>,
              links: text.match(/https?:\/\/[^\s<>"]+/g) ?? []
            })
            if (holding) held.push(() => callback())
            else callback()
          },
          (e: Error) => callback(e)
        )
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.server.address() as AddressInfo).port
  const toAddress = (address: string) => messages.filter((m) => m.to.includes(address.toLowerCase()))
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    failNext: (n, code) => {
      failures = n
      failCode = code
    },
    hold: () => {
      holding = true
    },
    release: () => {
      holding = false
      for (const answer of held.splice(0)) answer()
    },
    held: () => held.length,
    to: toAddress,
    next: async (to, match = () => true, timeoutMs = 30_000) => {
      let found: ReceivedMail | undefined
      await waitFor(() => {
        found = toAddress(to).find((m) => !taken.has(m) && match(m))
        return found !== undefined
      }, timeoutMs)
      taken.add(found!)
      return found!
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** The link of a mail whose path starts with `path` (e.g. `/auth/verify-email`). */
export const linkTo = (mail: ReceivedMail, path: string): URL => {
  const found = mail.links.map((l) => new URL(l)).find((u) => u.pathname === path)
  if (!found) throw new Error(`no ${path} link in mail "${mail.subject}": ${mail.links.join(", ")}`)
  return found
}
