/**
 * The billing and marketing e-mails: subject, plain text and HTML. Marketing mail (the waitlist drip) carries a
 * one-click unsubscribe link in the body and the `List-Unsubscribe` / `List-Unsubscribe-Post` headers (RFC 8058).
 */
import { escapeHtml } from "../../platform/http/Layout"

export interface MailContent {
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly headers?: Readonly<Record<string, string>>
}

const SIGNATURE = "— Whale Intelligence"
const NOT_ADVICE = "Whale Intelligence publishes observational on-chain data. It is not financial advice."

const build = (subject: string, paragraphs: ReadonlyArray<string>, link?: { href: string; label: string }, footer: ReadonlyArray<string> = []): MailContent => ({
  subject,
  text: [...paragraphs, ...(link ? [`${link.label}: ${link.href}`] : []), SIGNATURE, ...footer].join("\n\n") + "\n",
  html:
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">` +
    paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("") +
    (link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : "") +
    `<p>${escapeHtml(SIGNATURE)}</p>` +
    footer.map((p) => `<p style="color:#777;font-size:12px">${escapeHtml(p)}</p>`).join("") +
    `</body></html>`
})

const day = (d: Date) => d.toISOString().slice(0, 10)

export const cancellationMail = (tier: string, periodEnd: Date | null, billingUrl: string): MailContent =>
  build(
    "Your subscription is cancelled",
    [
      `Your ${tier} subscription is cancelled and will not renew.`,
      periodEnd ? `You keep ${tier} access until ${day(periodEnd)} (UTC); after that your account returns to the free tier.` : "Your account returns to the free tier.",
      "Changed your mind? You can subscribe again at any time from your billing page."
    ],
    { href: billingUrl, label: "Billing" }
  )

export const downgradeMail = (fromTier: string, toTier: string, effective: Date | null, billingUrl: string): MailContent =>
  build(
    `Your plan changes to ${toTier}`,
    [
      `Your ${fromTier} subscription is cancelled at the end of the period${effective ? ` (${day(effective)}, UTC)` : ""}; you keep ${fromTier} access until then.`,
      `After that, your ${toTier} subscription starts on the same payment method.`
    ],
    { href: billingUrl, label: "Billing" }
  )

export const paymentFailedMail = (tier: string, billingUrl: string): MailContent =>
  build(
    "Your payment did not go through",
    [
      `We could not charge your card for your ${tier} subscription.`,
      "Please update your payment method; we will try again over the next days. Until a payment succeeds, paid features are paused."
    ],
    { href: billingUrl, label: "Update payment method" }
  )

export const trialEndingMail = (tier: string, endsAt: Date, billingUrl: string): MailContent =>
  build(
    `Your ${tier} trial ends on ${day(endsAt)}`,
    [
      `Your ${tier} trial ends on ${day(endsAt)} (UTC). Nothing is charged: after that your account returns to the free tier.`,
      `To keep ${tier} features, subscribe from your billing page.`
    ],
    { href: billingUrl, label: "Choose a plan" }
  )

export const waitlistConfirmMail = (confirmUrl: string): MailContent =>
  build(
    "Confirm your place on the founding list",
    [
      "Someone (we hope you) asked to join the Whale Intelligence founding list with this address.",
      "Confirm to get a few short emails about the founding plans. If it was not you, ignore this message: you will get nothing more from us."
    ],
    { href: confirmUrl, label: "Confirm my address" }
  )

/** The drip sequence after a confirmed sign-up: step 1, 2, 3. */
export const DRIP: ReadonlyArray<{ readonly subject: string; readonly paragraphs: ReadonlyArray<string> }> = [
  {
    subject: "Welcome to the founding list",
    paragraphs: [
      "Thanks for confirming. Whale Intelligence watches large Ethereum holders and shows what they buy, sell and move to exchanges, as it happens.",
      "Founding members keep a lower yearly price for as long as they stay subscribed."
    ]
  },
  {
    subject: "How to read the Whale Sentiment Index",
    paragraphs: [
      "The Whale Sentiment Index is a 0–100 daily score of whale buying against selling, with its components and 30 days of history.",
      "Above 50, whales bought more than they sold that day; the components show whether it came from DEX trades or exchange flows."
    ]
  },
  {
    subject: "Your founding price is waiting",
    paragraphs: [
      "The founding yearly price is the lowest we will offer. It is available from your billing page once you have an account.",
      "This is the last email of this short series."
    ]
  }
]

export const dripMail = (step: number, unsubscribeUrl: string, siteUrl: string): MailContent => {
  const d = DRIP[step]!
  const base = build(d.subject, d.paragraphs, { href: siteUrl, label: "Open Whale Intelligence" }, [
    NOT_ADVICE,
    `You get this because you confirmed your place on the founding list. Unsubscribe: ${unsubscribeUrl}`
  ])
  return { ...base, headers: unsubscribeHeaders(unsubscribeUrl) }
}

/** RFC 8058 one-click unsubscribe headers. */
export const unsubscribeHeaders = (url: string): Record<string, string> => ({
  "List-Unsubscribe": `<${url}>`,
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
})
