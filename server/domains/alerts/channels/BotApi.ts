/**
 * A small Telegram Bot API client over HTTP (`MESSENGER_API_BASE`/bot<token>/<method>, JSON bodies): the notifier
 * sends with it, the bot role polls with it. Answers are parsed, never thrown: a 429 carries `retry_after`.
 */
import { Effect, Redacted } from "effect"
import { z } from "zod"

export const BotAnswer = z.object({
  ok: z.boolean(),
  result: z.unknown().optional(),
  error_code: z.number().int().optional(),
  description: z.string().optional(),
  parameters: z.object({ retry_after: z.number().optional(), migrate_to_chat_id: z.number().optional() }).optional()
})

export type CallResult =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly status: number; readonly description: string; readonly retryAfter: number | null; readonly network: boolean }

export interface MessengerClient {
  readonly configured: boolean
  readonly call: (method: string, params: Record<string, unknown>, timeoutMs?: number) => Effect.Effect<CallResult>
}

export const makeMessengerClient = (base: string, token: Redacted.Redacted | undefined): MessengerClient => ({
  configured: token !== undefined,
  call: (method, params, timeoutMs = 15_000) =>
    token === undefined
      ? Effect.succeed({ ok: false, status: 0, description: "MESSENGER_BOT_TOKEN is not set", retryAfter: null, network: false })
      : Effect.tryPromise({
          try: async (signal) => {
            const res = await fetch(`${base}/bot${Redacted.value(token)}/${method}`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(params),
              signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
            })
            const parsed = BotAnswer.safeParse(await res.json().catch(() => null))
            if (parsed.success && parsed.data.ok) return { ok: true as const, result: parsed.data.result }
            return {
              ok: false as const,
              status: parsed.success ? (parsed.data.error_code ?? res.status) : res.status,
              description: parsed.success ? (parsed.data.description ?? `HTTP ${res.status}`) : `HTTP ${res.status}`,
              retryAfter: parsed.success ? (parsed.data.parameters?.retry_after ?? null) : null,
              network: false
            }
          },
          catch: (e) => e
        }).pipe(Effect.catchAll((e) => Effect.succeed({ ok: false as const, status: 0, description: `network: ${String(e instanceof Error ? e.message : e)}`, retryAfter: null, network: true })))
})
