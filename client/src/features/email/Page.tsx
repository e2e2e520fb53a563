/**
 * The staff e-mail dashboard: inbox (bodies open in a sandboxed frame served under a strict CSP), contacts with
 * their status and threads, compose and quick send, batch send to pending contacts, and the X-outreach list.
 */
import { createSignal, For, onMount, Show, type Component } from "solid-js"
import { CONTACT_STATUSES, type ContactStatus, EmailEndpoints as E } from "../../../../schema/http/email"
import { pathOf } from "../../../../schema/http/endpoint"
import { Card } from "../../components/Card"
import { createEmailStore } from "./store"

const when = (iso: string) => new Date(iso).toISOString().slice(0, 16).replace("T", " ")
const size = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1e3))} kB`)

export const EmailPage: Component = () => {
  const mail = createEmailStore()
  const [to, setTo] = createSignal({ email: "", name: "", subject: "", body: "" })
  const [contact, setContact] = createSignal({ email: "", name: "", company: "" })
  const [batch, setBatch] = createSignal({ subject: "", body: "" })
  const [handle, setHandle] = createSignal("")
  onMount(() => void mail.load())

  return (
    <Show when={!mail.state.denied} fallback={<Card title="Not found" class="narrow"><p>There is nothing at this address.</p></Card>}>
      <div class="email">
        <Show when={mail.state.notice}>{(m) => <p class="notice" role="status">{m()}</p>}</Show>
        <Show when={mail.state.error}>{(m) => <p class="notice notice-warn" role="alert">{m()}</p>}</Show>
        <Card title="Inbox" aside={<span class="muted">{mail.state.ws?.unread ?? 0} unread · <button class="link" onClick={() => void mail.act(E.markAllRead)}>mark all read</button></span>}>
          <Show when={(mail.state.ws?.inbox.length ?? 0) > 0} fallback={<p class="empty">No replies yet.</p>}>
            <ul class="inbox">
              <For each={mail.state.ws?.inbox}>
                {(m) => (
                  <li class={m.read ? "" : "unread"}>
                    <button class="link" onClick={() => mail.openMessage(mail.state.openMessage === m.id ? null : m.id)}>
                      <strong>{m.from_address}</strong> · {m.subject || "(no subject)"} <span class="muted">{when(m.created_at)}</span>
                    </button>
                    <div class="muted">{m.snippet}</div>
                    <Show when={mail.state.openMessage === m.id}>
                      <iframe class="mail-body" title={`Message ${m.id}`} src={pathOf(E.messageBody, { msg_id: m.id })} sandbox="allow-popups allow-popups-to-escape-sandbox" />
                      <For each={m.attachments}>{(a) => <a class="att" href={pathOf(E.attachment, { att_id: a.id })}>{a.filename} ({size(a.size_bytes)})</a>}</For>
                      <p><Show when={m.contact_id}>{(c) => <button class="link" onClick={() => void mail.openThread(c())}>Open thread</button>}</Show>{" "}
                        <button class="link" onClick={() => void mail.act(E.deleteMessage, { params: { msg_id: m.id } }, "Message deleted.")}>Delete</button></p>
                    </Show>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        </Card>

        <Card title="Contacts" aside={<span class="muted">{mail.state.ws?.contacts.length ?? 0}</span>}>
          <form class="inline-form" onSubmit={(e) => { e.preventDefault(); void mail.act(E.addContact, { body: contact() }, "Contact added.").then((r) => r && setContact({ email: "", name: "", company: "" })) }}>
            <input type="email" required placeholder="email" aria-label="Contact e-mail" value={contact().email} onInput={(e) => setContact({ ...contact(), email: e.currentTarget.value })} />
            <input placeholder="name" aria-label="Contact name" value={contact().name} onInput={(e) => setContact({ ...contact(), name: e.currentTarget.value })} />
            <input placeholder="company" aria-label="Company" value={contact().company} onInput={(e) => setContact({ ...contact(), company: e.currentTarget.value })} />
            <button type="submit">Add</button>
          </form>
          <div class="table-wrap">
            <table class="table">
              <thead><tr><th>Contact</th><th>Status</th><th class="num">Msgs</th><th /></tr></thead>
              <tbody>
                <For each={mail.state.ws?.contacts}>
                  {(c) => (
                    <tr>
                      <td><button class="link" onClick={() => void mail.openThread(c.id)}>{c.name || c.email}</button><div class="muted">{c.email}{c.company ? ` · ${c.company}` : ""}</div></td>
                      <td>
                        <select aria-label={`Status of ${c.email}`} value={c.status} onChange={(e) => void mail.act(E.setStatus, { params: { contact_id: c.id }, body: { status: e.currentTarget.value as ContactStatus } })}>
                          <For each={CONTACT_STATUSES}>{(s) => <option value={s}>{s}</option>}</For>
                        </select>
                      </td>
                      <td class="num">{c.messages}{c.unread > 0 ? ` (${c.unread} new)` : ""}</td>
                      <td><a href={pathOf(E.compose, { contact_id: c.id })}>Compose</a> · <button class="link" onClick={() => void mail.act(E.deleteContact, { params: { contact_id: c.id } }, "Contact deleted.")}>Delete</button></td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
          </div>
        </Card>

        <Show when={mail.state.thread}>
          {(t) => (
            <Card title={`Thread · ${t().contact.email}`} aside={<span class="muted">{t().contact.status}</span>}>
              <ul class="inbox">
                <For each={t().messages}>
                  {(m) => <li><strong>{m.direction === "in" ? "⇐" : "⇒"} {m.subject}</strong> <span class="muted">{when(m.created_at)}{m.delivery_status ? ` · ${m.delivery_status}` : ""}</span><div class="muted">{m.snippet}</div></li>}
                </For>
              </ul>
            </Card>
          )}
        </Show>

        <Card title="Quick send">
          <form class="stack-form" onSubmit={(e) => { e.preventDefault(); void mail.act(E.quickSend, { body: to() }, "Message queued.").then((r) => r && setTo({ email: "", name: "", subject: "", body: "" })) }}>
            <input type="email" required placeholder="to" aria-label="Recipient" value={to().email} onInput={(e) => setTo({ ...to(), email: e.currentTarget.value })} />
            <input required placeholder="subject" aria-label="Subject" value={to().subject} onInput={(e) => setTo({ ...to(), subject: e.currentTarget.value })} />
            <textarea required rows={4} placeholder="message" aria-label="Message" value={to().body} onInput={(e) => setTo({ ...to(), body: e.currentTarget.value })} />
            <button type="submit">Send</button>
          </form>
        </Card>

        <Card title="Batch send to pending contacts" aside={<span class="muted">{mail.state.ws?.contacts.filter((c) => c.status === "pending").length ?? 0} pending</span>}>
          <form class="stack-form" onSubmit={(e) => { e.preventDefault(); if (confirm("Send to every pending contact?")) void mail.batchSend(batch().subject, batch().body) }}>
            <input required placeholder="subject" aria-label="Batch subject" value={batch().subject} onInput={(e) => setBatch({ ...batch(), subject: e.currentTarget.value })} />
            <textarea required rows={4} placeholder="message (an unsubscribe line is added)" aria-label="Batch message" value={batch().body} onInput={(e) => setBatch({ ...batch(), body: e.currentTarget.value })} />
            <button type="submit">Send batch</button>
          </form>
        </Card>

        <Card title="X outreach" aside={<span class="muted">{mail.state.ws?.outreach.filter((o) => o.sent).length ?? 0} / {mail.state.ws?.outreach.length ?? 0} sent</span>}>
          <form class="inline-form" onSubmit={(e) => { e.preventDefault(); void mail.act(E.addOutreach, { body: { handle: handle() } }).then((r) => r && setHandle("")) }}>
            <input required placeholder="@handle" aria-label="X handle" value={handle()} onInput={(e) => setHandle(e.currentTarget.value)} />
            <button type="submit">Add</button>
          </form>
          <ul class="inbox">
            <For each={mail.state.ws?.outreach}>
              {(o) => (
                <li>
                  <label><input type="checkbox" checked={o.sent} onChange={() => void mail.act(E.toggleOutreach, { params: { target_id: o.id } })} /> <a href={`https://x.com/${o.handle}`} target="_blank" rel="noopener noreferrer">@{o.handle}</a></label>
                  {o.note ? <span class="muted"> · {o.note}</span> : null} <button class="link" onClick={() => void mail.act(E.deleteOutreach, { params: { target_id: o.id } })}>Delete</button>
                </li>
              )}
            </For>
          </ul>
        </Card>
      </div>
    </Show>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default EmailPage
