/** The account e-mails: subject, plain text and HTML for each. Links are absolute, built from PUBLIC_BASE_URL. */
import { escapeHtml } from "../../platform/http/Layout"

export interface MailContent {
  readonly subject: string
  readonly text: string
  readonly html: string
}

const SIGNATURE = "— Whale Intelligence"

const paragraph = (p: string) => `<p>${escapeHtml(p)}</p>`

/** Text before the link, the link, text after it; the same in both bodies. */
const mail = (subject: string, before: ReadonlyArray<string>, link?: { href: string; label: string }, after: ReadonlyArray<string> = []): MailContent => ({
  subject,
  text: [...before, ...(link ? [link.href] : []), ...after, SIGNATURE].join("\n\n") + "\n",
  html:
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">` +
    before.map(paragraph).join("") +
    (link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : "") +
    after.map(paragraph).join("") +
    paragraph(SIGNATURE) +
    `</body></html>`
})

export const verificationMail = (link: string, hours: number) =>
  mail(
    "Confirm your e-mail address",
    ["Welcome to Whale Intelligence.", `Confirm your e-mail address with the link below (valid for ${hours} hours):`],
    { href: link, label: "Confirm my e-mail address" },
    ["If you did not create an account, ignore this message."]
  )

export const passwordResetMail = (link: string, minutes: number) =>
  mail(
    "Reset your password",
    [`Someone asked to reset the password of your Whale Intelligence account. The link below works once, for ${minutes} minutes:`],
    { href: link, label: "Choose a new password" },
    ["If it wasn't you, ignore this message: your password stays as it is."]
  )

export const magicLoginMail = (link: string, minutes: number) =>
  mail(
    "Your sign-in link",
    [`Sign in to Whale Intelligence with the link below. It works once, for ${minutes} minutes:`],
    { href: link, label: "Sign in" },
    ["If you did not ask for it, ignore this message."]
  )

export const trialInviteMail = (link: string, days: number) =>
  mail(
    "Try Alpha free for 7 days",
    ["Start a free 7-day Alpha trial — signals, backtests and named accumulators. No card needed.", `The link is valid for ${days} days:`],
    { href: link, label: "Start my Alpha trial" }
  )

export const accountExistsMail = (loginLink: string, resetLink: string) =>
  mail(
    "You already have an account",
    [
      "Someone tried to create a Whale Intelligence account with this e-mail address, which already has one.",
      `Sign in at ${loginLink} — or, if you forgot your password, reset it at ${resetLink}.`,
      "If it wasn't you, ignore this message: nothing was changed."
    ]
  )

export const passwordChangedMail = (resetLink: string) =>
  mail(
    "Your password was changed",
    [
      "The password of your Whale Intelligence account was just changed, and every other session was signed out.",
      `If it wasn't you, reset your password now at ${resetLink} and contact us.`
    ]
  )
