/**
 * The local sinks of bench:alerts, in a process of their own (as receivers are in production: elsewhere): a
 * signed-webhook receiver and a Bot API stand-in. Started by bench/alerts.ts with `fork`; sends `{ ready, webhookUrl,
 * botUrl, botToken }` once listening, answers `"report"` with the arrival times (epoch ms) it saw, and exits on
 * `"close"`.
 */
import { startBotApi } from "../test/support/telegram"
import { startReceiver } from "../test/alerts/support"

const main = async () => {
  const bot = await startBotApi()
  const hooks = await startReceiver()
  process.on("message", async (m) => {
    if (m === "report") {
      const webhook = hooks.received.map((r) => ({ at: r.at, type: String((JSON.parse(r.body) as { data?: { alert_type?: unknown } }).data?.alert_type ?? "") }))
      process.send!({ report: { webhook, messenger: bot.sent.map((s) => s.at) } })
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
