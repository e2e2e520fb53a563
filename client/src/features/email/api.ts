/**
 * The e-mail workspace's calls. Reads are parsed with the shared schemas (schema/http/email.ts); the §4.6 actions
 * are the same url-encoded forms a plain HTML form would post, sent with the CSRF token the workspace answer gave.
 */
import { z } from "zod"
import { Thread, Workspace } from "../../../../schema/http/email"
import { call, HttpError } from "../../api/http"

export const emailApi = {
  workspace: () => call(Workspace, "GET", "/api/email/workspace"),
  thread: (contactId: number) => call(Thread, "GET", `/api/email/contacts/${contactId}/thread`),
  /** Posts a workspace form; resolves with the JSON answer. */
  form: async (path: string, csrf: string, fields: Record<string, string> = {}): Promise<unknown> => {
    const res = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded", "x-csrf-token": csrf },
      body: new URLSearchParams({ ...fields, _csrf: csrf }).toString()
    })
    const body = (await res.json().catch(() => null)) as { detail?: unknown; code?: string } | null
    if (!res.ok) {
      const detail = typeof body?.detail === "string" ? body.detail : Array.isArray(body?.detail) ? `${(body!.detail[0] as { loc?: Array<string> }).loc?.at(-1)}: ${(body!.detail[0] as { msg?: string }).msg}` : `Request failed (${res.status})`
      throw new HttpError(res.status, body?.code, detail)
    }
    return body
  }
}

export const BatchResult = z.object({ sent: z.number().int(), remaining_pending: z.number().int() })
