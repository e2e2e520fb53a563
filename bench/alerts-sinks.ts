/**
 * The local sinks of bench:alerts, in a process of their own (as receivers are in production: elsewhere): a
 * signed-webhook receiver and a Bot API stand-in. Started by bench/alerts.ts with `fork`; sends `{ ready, webhookUrl,
 * botUrl, botToken }` once listening, answers `"report"` with the arrival times (epoch ms) it saw, and exits on
 * `"close"`.
 */
import { startBotApi } from "../test/support/telegram"
import { startReceiver, webhookEvents } from "../test/alerts/support"

const main = async () => {
  const bot = await startBotApi()
  const hooks = await startReceiver()
  process.on("message", async (m) => {
    if (m === "report") {
      // A message of several alerts (`alert.batch`) counts as each of its alerts, arrived when it did.
      const webhook = hooks.received.flatMap((r, request) => webhookEvents(r.body).map((e) => ({ at: r.at, type: String(e.data?.alert_type ?? ""), request })))
      process.send!({ report: { webhook, webhookRequests: hooks.received.length, messenger: bot.sent.map((s) => s.at) } })
    }
    if (m === "close") {
      await bot.close()
      await hooks.close()
      process.exit(0)
    }
  })
  process.send!({ ready: true, webhookUrl: hooks.url, botUrl: bot.url, botToken: bot.token })
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
