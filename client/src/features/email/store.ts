/** The /email dashboard's state: the workspace (inbox, contacts, outreach), the open thread, and form actions. */
import { createStore } from "solid-js/store"
import { EmailEndpoints as E, type Thread, type Workspace } from "../../../../schema/http/email"
import type { BodyOf, ParamsOf, ResponseOf } from "../../../../schema/http/endpoint"
import { type EmailAction, emailApi } from "./api"

export interface EmailState {
  readonly ws: Workspace | null
  readonly thread: Thread | null
  readonly openMessage: number | null
  readonly notice: string | null
  readonly error: string | null
  readonly denied: boolean
}

export const createEmailStore = () => {
  const [state, setState] = createStore<EmailState>({ ws: null, thread: null, openMessage: null, notice: null, error: null, denied: false })
  const load = async () => {
    try {
      setState({ ws: await emailApi.workspace(), error: null })
    } catch (e) {
      const status = (e as { status?: number }).status
      setState(status === 401 || status === 403 ? { denied: true } : { error: (e as Error).message })
    }
  }
  const act = async <A extends EmailAction>(
    action: A, input: { params?: ParamsOf<A>; body?: Omit<BodyOf<A>, "_csrf"> } = {}, notice?: string
  ): Promise<ResponseOf<A> | null> => {
    if (!state.ws) return null
    try {
      const answer = await emailApi.form(action, state.ws.csrf_token, input)
      setState({ notice: notice ?? null, error: null })
      await load()
      if (state.thread) await openThread(state.thread.contact.id)
      return answer
    } catch (e) {
      setState({ error: (e as Error).message, notice: null })
      return null
    }
  }
  const openThread = async (contactId: number) => {
    try {
      setState({ thread: await emailApi.thread(contactId) })
    } catch (e) {
      setState({ error: (e as Error).message })
    }
  }
  return {
    state, load, act, openThread,
    openMessage: (id: number | null) => {
      setState({ openMessage: id })
      if (id !== null) void emailApi.form(E.markRead, state.ws?.csrf_token ?? "", { params: { msg_id: id } }).then(load, () => undefined)
    },
    batchSend: async (subject: string, body: string) => {
      const answer = await act(E.batchSend, { body: { subject, body } })
      if (answer) setState({ notice: `Batch queued: ${answer.sent} sent, ${answer.remaining_pending} still pending.` })
    }
  }
}
