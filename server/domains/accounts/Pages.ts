/**
 * Small server-rendered pages for people following mailed links in a browser: the new-password form of a reset
 * link, the forgot-password form, and the outcome of verify/trial/reset. API clients get JSON from the same
 * endpoints; a browser (Accept: text/html) gets these.
 */
import type { Header } from "../../platform/http/Reply"
import { Reply } from "../../platform/http/Reply"
import { escapeHtml, page } from "../../platform/http/Layout"
import { PASSWORD_MIN_LENGTH } from "../../../schema/http/auth"

/** A browser navigation rather than an API call. */
export { wantsHtml } from "../../platform/http/Route"

const PRIVATE: ReadonlyArray<Header> = [
  ["cache-control", "no-store"],
  // The URL holds a one-time token: never leak it to another site.
  ["referrer-policy", "no-referrer"]
]

export const messagePage = (title: string, message: string, status = 200, link = { href: "/", label: "Continue to Whale Intelligence" }) =>
  Reply.html(
    page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>`),
    status,
    PRIVATE
  )

export const resetPasswordForm = (token: string) =>
  Reply.html(
    page(
      "Choose a new password",
      `<h1>Choose a new password</h1>
<form method="post" action="/auth/reset-password">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<p><label>New password (at least ${PASSWORD_MIN_LENGTH} characters)<br>
<input type="password" name="new_password" minlength="${PASSWORD_MIN_LENGTH}" maxlength="256" autocomplete="new-password" required></label></p>
<p><button type="submit">Set password</button></p>
</form>`
    ),
    200,
    PRIVATE
  )

export const forgotPasswordForm = () =>
  Reply.html(
    page(
      "Reset your password",
      `<h1>Reset your password</h1>
<form method="post" action="/auth/forgot-password">
<p><label>E-mail address<br><input type="email" name="email" autocomplete="email" required></label></p>
<p><button type="submit">Send me a reset link</button></p>
</form>`
    ),
    200,
    PRIVATE
  )
