/**
 * The e-mail workspace's calls, by their shared contracts (schema/http/email.ts). Reads are JSON; the §4.6 actions
 * are the same url-encoded forms a plain HTML form would post, sent with the CSRF token the workspace answer gave
 * (in the form and as `X-CSRF-Token`).
 */
import { EmailEndpoints as E } from "../../../../schema/http/email"
import type { BodyOf, Endpoint, ParamsOf } from "../../../../schema/http/endpoint"
import { call, type CallInput } from "../../api/http"

/** A workspace action: the contract of one of its forms. */
export type EmailAction = (typeof E)[
  "markRead" | "deleteMessage" | "markAllRead" | "addContact" | "quickSend" | "batchSend" | "setStatus" | "deleteContact" | "addOutreach" |
  "deleteOutreach" | "toggleOutreach"
]

export const emailApi = {
  workspace: () => call(E.workspace),
  thread: (contactId: number) => call(E.thread, { params: { contact_id: contactId } }),
  /** Posts a workspace form with its CSRF token; resolves with the JSON answer, parsed by the action's contract. */
  form: <A extends Endpoint<any, any, any, any>>(action: A, csrf: string, input: { params?: ParamsOf<A>; body?: Omit<BodyOf<A>, "_csrf"> } = {}) =>
    call(action, { params: input.params, body: { ...input.body, _csrf: csrf } } as unknown as CallInput<A>, { form: true, headers: { "x-csrf-token": csrf } })
}
