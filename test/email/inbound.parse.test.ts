/** The inbound pipeline as a function, over the real messages of ../shared/fixtures/emails-rfc822. */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import MailComposer from "nodemailer/lib/mail-composer/index.js"
import { describe, expect, it } from "vitest"
import { decodeRawB64, parseInbound, safeFilename } from "../../server/domains/email/Inbound"
import { sanitizeEmailHtml } from "../../server/domains/email/Sanitize"
import { fixturePath, requireFixtures } from "../support/fixtures"

const fx = requireFixtures("emails-rfc822")
const raw = (rel: string) => readFileSync(fixturePath("emails-rfc822", rel))

const compose = (mail: ConstructorParameters<typeof MailComposer>[0]) =>
  new Promise<Buffer>((resolve, reject) => new MailComposer(mail).compile().build((e, m) => (e ? reject(e) : resolve(m))))

describe("decodeRawB64", () => {
  it("accepts standard and URL-safe base64, with or without padding and line breaks", () => {
    const bytes = Buffer.from("From: a@b.c\r\n\r\nhi ~~~???")
    expect(decodeRawB64(bytes.toString("base64"))).toEqual(bytes)
    expect(decodeRawB64(bytes.toString("base64url"))).toEqual(bytes)
    expect(decodeRawB64(bytes.toString("base64").replace(/(.{10})/g, "$1\r\n"))).toEqual(bytes)
  })
  it("refuses what is not base64", () => {
    for (const bad of ["", "!!!!", "abc$def", "a", "QUJD=x", "QUJ=D"]) expect(decodeRawB64(bad), bad).toBeNull()
  })
})

describe.skipIf(!fx.available)(`inbound parsing of real messages${fx.skipNote}`, () => {
  const files = fx.available
    ? readdirSync(fixturePath("emails-rfc822")).filter((d) => statSync(fixturePath("emails-rfc822", d)).isDirectory())
      .flatMap((d) => readdirSync(fixturePath("emails-rfc822", d)).map((f) => join(d, f)))
    : []

  it("parses every fixture (malformed real-world ones included) into a stored shape, given the envelope sender", async () => {
    expect(files.length).toBeGreaterThan(90)
    for (const f of files) {
      const r = await parseInbound(raw(f), undefined, "worker-envelope@example.org")
      expect(r.ok, f).toBe(true)
      if (!r.ok) continue
      expect(r.message.messageId.length, f).toBeGreaterThan(0)
      expect(r.message.from.address, f).toContain("@")
      expect(r.message.html, f).not.toMatch(/<script|javascript:|\son\w+=/i)
      for (const a of r.message.attachments) {
        expect(a.filename, f).not.toMatch(/[\/\\\u0000-\u001f"]/)
        expect(a.size, f).toBe(a.content.length)
      }
    }
  })

  it("extracts attachments with their decoded names and bytes", async () => {
    const pdf = await parseInbound(raw("attachment_emails/attachment_pdf.eml"))
    expect(pdf.ok && pdf.message.attachments.map((a) => [a.filename, a.contentType])).toEqual([["broken.pdf", "application/pdf"]])
    const named = await parseInbound(raw("attachment_emails/attachment_with_quoted_filename.eml"))
    expect(named.ok && named.message.attachments[0]!.filename).toBe("Eelanalüüsi päring.jpg")
    const jp = await parseInbound(raw("multi_charset/japanese_attachment.eml"))
    expect(jp.ok && jp.message.attachments[0]!.filename).toBe("てすと.txt")
    const inline = await parseInbound(raw("attachment_emails/attachment_message_rfc822_inline_image.eml"))
    expect(inline.ok && inline.message.attachments.map((a) => a.contentType)).toContain("image/png")
  })

  it("drops remote images of real HTML mail", async () => {
    for (const f of ["error_emails/bad_subject.eml", "error_emails/content_transfer_encoding_with_8bits.eml"]) {
      expect(raw(f).toString("latin1")).toMatch(/<img[^>]+src=["']?https?:/i)
      const r = await parseInbound(raw(f))
      expect(r.ok, f).toBe(true)
      if (r.ok) expect(r.message.html, f).not.toMatch(/src=["']?https?:/i)
    }
  })

  it("reads threading headers", async () => {
    const r = await parseInbound(raw("rfc2822/example06.eml"))
    expect(r.ok && r.message.inReplyTo).toBe("1234@local.machine.example")
    expect(r.ok && r.message.references).toContain("1234@local.machine.example")
  })

  it("uses the envelope sender only when the From header is unusable, and refuses a message with neither", async () => {
    const r = await parseInbound(raw("rfc2822/example13.eml"))
    expect(r).toMatchObject({ ok: false, problem: { kind: "malformed" } })
    const withEnvelope = await parseInbound(raw("rfc2822/example13.eml"), undefined, "jdoe@machine.example")
    expect(withEnvelope.ok && withEnvelope.message.from.address).toBe("jdoe@machine.example")
    const normal = await parseInbound(raw("plain_emails/basic_email.eml"), undefined, "other@example.org")
    expect(normal.ok && normal.message.from.address).toBe("test@lindsaar.net")
  })

  it("derives a stable id for a message without Message-ID", async () => {
    const a = await parseInbound(raw("multi_charset/japanese.eml"))
    const b = await parseInbound(raw("multi_charset/japanese.eml"))
    expect(a.ok && a.message.messageId).toMatch(/^sha256-[0-9a-f]{64}@inbound\.invalid$/)
    expect(a.ok && b.ok && a.message.messageId === b.message.messageId).toBe(true)
  })
})

describe("hostile HTML", () => {
  it("removes scripts, event handlers, remote resources and forms, keeps text, links and cid images", async () => {
    const message = await compose({
      from: "Mallory <mallory@evil.example>",
      to: "reply+m1-00000000000000000000@in.whale.test",
      subject: "Hello",
      html: `<html><head><style>body{background:url(https://evil.example/t.png)}</style><script>alert(1)</script>
<meta http-equiv="refresh" content="0;url=https://evil.example"><base href="https://evil.example/"></head>
<body onload="steal()"><p style="color:red;background-image:url(https://evil.example/x)">Hi <b>there</b></p>
<img src="https://evil.example/pixel.gif" width="1"><img src="//evil.example/p2.gif"><img src="cid:logo@x" alt="logo">
<img src="x" onerror="alert(2)"><a href="javascript:alert(3)">bad</a> <a href="https://ok.example/page" onclick="x()">good</a>
<form action="https://evil.example/phish"><input name="password"><button>Go</button></form>
<iframe src="https://evil.example"></iframe><object data="x.swf"></object><svg><script>alert(4)</script></svg>
<div><img src="data:image/svg+xml;base64,PHN2Zz4=" alt="svg"></div></body></html>`,
      attachments: [{ filename: "logo.png", content: Buffer.from("89504e470d0a1a0a", "hex"), cid: "logo@x" }]
    })
    const r = await parseInbound(message)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    const html = r.message.html
    expect(html).not.toMatch(/<script|alert\(|<style|<meta|<base|<form|<input|<button|<iframe|<object|<svg/i)
    expect(html).not.toMatch(/\bon[a-z]+=/i)
    expect(html).not.toMatch(/evil\.example/)
    expect(html).not.toMatch(/javascript:/i)
    expect(html).not.toMatch(/data:image\/svg/i)
    expect(html).toContain("<b>there</b>")
    expect(html).toMatch(/<p style="color:red">/)
    expect(html).toContain('src="cid:logo@x"')
    expect(html).toContain('<a href="https://ok.example/page" target="_blank" rel="noopener noreferrer nofollow">good</a>')
    expect(r.message.attachments.map((a) => [a.filename, a.contentId])).toEqual([["logo.png", "logo@x"]])
  })

  it("is idempotent (sanitizing sanitized HTML changes nothing)", () => {
    const once = sanitizeEmailHtml(`<p onclick="x">a <img src="cid:q"><a href="mailto:a@b.c">m</a></p>`)
    expect(sanitizeEmailHtml(once)).toBe(once)
  })
})

describe("limits and malformed input", () => {
  it("refuses a message over the size cap, too many attachments, or a too-large attachment", async () => {
    const big = await compose({ from: "a@b.example", to: "c@d.example", text: "x".repeat(5000) })
    expect(await parseInbound(big, { maxRawBytes: 1000, maxAttachmentBytes: 1000, maxAttachments: 5 })).toMatchObject({ ok: false, problem: { kind: "too_large" } })
    const many = await compose({ from: "a@b.example", to: "c@d.example", text: "x", attachments: [1, 2, 3].map((i) => ({ filename: `${i}.txt`, content: "abc" })) })
    expect(await parseInbound(many, { maxRawBytes: 1e6, maxAttachmentBytes: 1000, maxAttachments: 2 })).toMatchObject({ ok: false, problem: { kind: "too_large" } })
    const fat = await compose({ from: "a@b.example", to: "c@d.example", text: "x", attachments: [{ filename: "f.bin", content: Buffer.alloc(5000) }] })
    expect(await parseInbound(fat, { maxRawBytes: 1e6, maxAttachmentBytes: 1000, maxAttachments: 5 })).toMatchObject({ ok: false, problem: { kind: "too_large" } })
  })

  it("refuses bytes that are not a message", async () => {
    for (const bad of [Buffer.from(""), Buffer.from("just some text\nwithout headers"), Buffer.from([0, 1, 2, 3, 0xff, 0xfe]), Buffer.from("\u0000From: a@b.c\r\n\r\nx")]) {
      expect(await parseInbound(bad)).toMatchObject({ ok: false, problem: { kind: "malformed" } })
    }
  })

  it("keeps attachment names free of paths and control characters", () => {
    expect(safeFilename("../../etc/passwd", 0, "text/plain")).toBe("passwd")
    expect(safeFilename('a"b\r\nc.txt', 0, "text/plain")).toBe("abc.txt")
    expect(safeFilename(undefined, 2, "image/png")).toBe("attachment-3.png")
  })
})
