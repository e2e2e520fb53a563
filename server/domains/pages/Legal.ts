/**
 * The legal pages of §4.5 with their real content for this service: what it is (observational on-chain data, not
 * financial advice), the licence of its public data (CC-BY-4.0), what it stores and why, the cookies it sets.
 * `contact` is the address people write to (CONTACT_EMAIL, or the sender's address when it is a real one); without
 * one the pages say that the operator has not published one, never a made-up address.
 */
import { esc, sitePage } from "./Site"

export interface LegalContext {
  readonly contact: string | null
  /** Last material change of the texts below (shown on each page). */
  readonly updated: string
}

export const LEGAL_UPDATED = "2026-11-24"

const mailto = (c: LegalContext) => (c.contact === null ? "the operator of this service (no contact address is published yet)" : `<a href="mailto:${esc(c.contact)}">${esc(c.contact)}</a>`)
const updated = (c: LegalContext) => `<p class="muted">Last updated ${esc(c.updated)}. Questions: ${c.contact === null ? "no contact address is published yet" : mailto(c)}.</p>`

const NOT_ADVICE = `<p class="note"><strong>Not financial advice.</strong> Whale Intelligence publishes observations of public
blockchain activity. Nothing on the site, in the API, in e-mails or in alerts is a recommendation to buy, sell or hold
any asset, and past whale behaviour does not predict future prices.</p>`

export const termsPage = (c: LegalContext) => sitePage({ title: "Terms of service", description: "The terms of using Whale Intelligence." }, `
<h1>Terms of service</h1>${updated(c)}
<p>These terms govern your use of Whale Intelligence (the website, the console, the APIs, the MCP endpoint, e-mails and
alerts, together "the service"). By creating an account or using the service you accept them. Business customers
are additionally covered by the <a href="/business-terms">business terms</a>.</p>
<h2>1. What the service is</h2>
<p>The service watches a set of large Ethereum wallets ("whales"), records their on-chain swaps and exchange
transfers, and derives observational analytics from them: a sentiment index, top tokens, positioning, graded picks,
an event playbook, a paper-trading simulator, backtests and alerts. All of it is computed from public blockchain data
and labels of addresses; it describes what happened, not what will happen.</p>
${NOT_ADVICE}
<h2>2. Accounts</h2>
<ul><li>You must give a working e-mail address and keep your password secret. You are responsible for activity under
your account and your API keys.</li>
<li>One person per account. Do not share paid accounts or resell access, except as the business terms allow.</li>
<li>We may suspend an account that abuses the service (scraping beyond the API limits, attacks, fraud).</li></ul>
<h2>3. Plans, trials and payment</h2>
<ul><li>Paid tiers (Pro, Alpha, Whale) are billed monthly or yearly in advance, by card through our card processor or
in cryptocurrency through our crypto processor. Prices are shown on the <a href="/billing">plans page</a>.</li>
<li>A free Alpha trial lasts 7 days and converts to nothing: when it ends you return to the free tier.</li>
<li>You may cancel at any time. Cancelling or downgrading keeps your access until the end of the period you paid for;
no partial refunds are made for unused time, except where the law requires it.</li></ul>
<h2>4. Acceptable use of data and APIs</h2>
<ul><li>The keyed data API is for Whale-tier keys, limited to 25,000 requests per key per UTC day.</li>
<li>The public API and badge are free; their data is licensed under
<a href="https://creativecommons.org/licenses/by/4.0/">CC-BY-4.0</a>: you may reuse it, also commercially, with
attribution to "Whale Intelligence" and a link to the site.</li>
<li>Data behind paid tiers (full positioning, named accumulators, picks, playbook, Echo, the keyed API) is for your own
use and may not be republished in bulk.</li></ul>
<h2>5. No warranty, limited liability</h2>
<p>The data comes from public blockchains, third-party prices and heuristics (labels, swap decoding). It can be late,
incomplete or wrong, for example after a chain reorganisation. The service is provided "as is". To the extent the law
allows, we are not liable for trading losses or any decision taken on the basis of the service; our total liability is
limited to the fees you paid in the 12 months before the claim.</p>
<h2>6. Changes and ending</h2>
<p>We may change these terms; material changes are announced by e-mail or in the console at least 14 days before they
apply. You may close your account at any time by writing to us; we may end the service with 30 days' notice and refund
the unused part of prepaid periods.</p>
<h2>7. Related documents</h2>
<p><a href="/privacy">Privacy policy</a> · <a href="/cookie-policy">Cookie policy</a> · <a href="/disclaimer">Disclaimer</a></p>`)

export const businessTermsPage = (c: LegalContext) => sitePage({ title: "Business terms", description: "Terms for business accounts of Whale Intelligence." }, `
<h1>Business terms</h1>${updated(c)}
<p>These terms apply in addition to the <a href="/terms">terms of service</a> when an account is switched to a business
account (company name and, where applicable, VAT number and address). Where they differ, these terms prevail for
business accounts.</p>
<h2>1. Business customer</h2>
<p>You confirm that you act for the company named in the account and have authority to bind it. Consumer cancellation
rights for distance contracts do not apply to business accounts.</p>
<h2>2. Invoices and tax</h2>
<p>Invoices carry the company details of the account. Where the reverse-charge mechanism applies, you account for VAT
in your country; you keep the VAT number valid and the details current (account settings).</p>
<h2>3. Internal use by your team</h2>
<p>A business account may use the data internally within the named company. Each person needs their own account;
API keys belong to the account that created them and count against its daily limit.</p>
<h2>4. Redistribution</h2>
<p>Public data (CC-BY-4.0) may be redistributed with attribution. Paid-tier data may be shown to your clients in
derived, non-bulk form (charts, commentary, research notes) with attribution; bulk redistribution, resale of raw data
or building a competing data feed needs a separate written agreement.</p>
${NOT_ADVICE}
<h2>5. Data processing</h2>
<p>For personal data in your account we act as controller as described in the <a href="/privacy">privacy policy</a>. On
request we sign a data-processing agreement for the personal data of your team members.</p>`)

export const privacyPage = (c: LegalContext) => sitePage({ title: "Privacy policy", description: "What Whale Intelligence stores about you and why." }, `
<h1>Privacy policy</h1>${updated(c)}
<p>This policy explains what personal data Whale Intelligence stores, why, for how long, and your rights. We do not sell
personal data and we show no third-party advertising.</p>
<h2>What we store and why</h2>
<div class="scroll"><table><thead><tr><th>Data</th><th>Why</th><th>How long</th></tr></thead><tbody>
<tr><td>E-mail address, display name</td><td>your account, sign-in, service e-mails</td><td>until the account is closed</td></tr>
<tr><td>Password</td><td>sign-in; stored only as a salted, memory-hard hash (scrypt), never in clear</td><td>until changed or the account is closed</td></tr>
<tr><td>Company name, VAT number, address (business accounts)</td><td>invoices and tax</td><td>as long as tax law requires (typically 10 years)</td></tr>
<tr><td>Sessions: time, IP address, browser user agent</td><td>keeping you signed in, showing and ending your sessions, security</td><td>until the session ends or expires</td></tr>
<tr><td>Subscription: plan, period, provider's customer and subscription ids, cancellation reason</td><td>billing and access to paid tiers; card numbers are held by the card processor, never by us</td><td>as long as tax law requires</td></tr>
<tr><td>API keys (a hash and the prefix) and daily request counts</td><td>the keyed API and its limits</td><td>until revoked; counts 13 months</td></tr>
<tr><td>Alerts, channel settings (e.g. your messenger chat id), alert history</td><td>delivering the alerts you set up</td><td>until you delete them or the account</td></tr>
<tr><td>Watchlist, custom wallets, Echo portfolio and trades</td><td>the features you use</td><td>until you delete them or the account</td></tr>
<tr><td>E-mails we send you (recipient, subject, time, delivery status; bodies with one-time links are deleted once sent)</td><td>delivering mail exactly once, handling bounces and complaints</td><td>12 months</td></tr>
<tr><td>Waitlist and marketing preferences, unsubscribes</td><td>the founding waitlist and its e-mails; honouring unsubscribes</td><td>until you unsubscribe; the suppression itself is kept so we never mail you again</td></tr>
<tr><td>Correspondence with us (e-mails you send, their attachments)</td><td>answering you</td><td>up to 24 months</td></tr>
</tbody></table></div>
<p>The whale analytics themselves are computed from public blockchain data. Wallet addresses and their labels describe
public on-chain accounts; if you believe a label identifies you personally, write to us and we will review it.</p>
<h2>Legal bases</h2>
<p>Performing our contract with you (account, paid features, alerts), legal obligations (invoices, tax), legitimate
interests (security, preventing abuse, answering correspondence) and your consent (marketing e-mails; you can withdraw it
with the unsubscribe link in every such e-mail).</p>
<h2>Processors</h2>
<p>Hosting and database providers, an e-mail delivery provider (sending mail and reporting delivery, bounces and
complaints), a card processor and a crypto payment processor (payments), and a messaging provider when you connect a
messenger channel. They process data only on our instructions.</p>
<h2>Your rights</h2>
<p>You may ask for a copy of your data, correct it, have it deleted, restrict or object to processing, and take it
elsewhere. Write to ${mailto(c)} from your account's address. You may also
complain to your data-protection authority.</p>
<h2>Cookies</h2>
<p>See the <a href="/cookie-policy">cookie policy</a>: we only set cookies needed to keep you signed in.</p>`)

export const disclaimerPage = (c: LegalContext) => sitePage({ title: "Disclaimer", description: "Whale Intelligence publishes observational data, not financial advice." }, `
<h1>Disclaimer</h1>${updated(c)}
${NOT_ADVICE}
<h2>Observational data</h2>
<p>Every figure on Whale Intelligence — the sentiment index, top tokens, positioning scores, picks and their grades,
playbook metrics, backtests, Echo results and alerts — is derived from public transactions of a chosen set of large
Ethereum wallets. It shows what those wallets did. It does not know why they did it, whether they hedge elsewhere, or
what they will do next.</p>
<h2>Limits of the data</h2>
<ul><li>Wallet labels and size cohorts are heuristics and can be wrong.</li>
<li>Swaps are decoded from token movements; unusual contracts can be missed or misread.</li>
<li>USD values use prices observed in the same data and can lag or miss for illiquid tokens.</li>
<li>Recent blocks can be reorganised; figures are corrected when that happens.</li>
<li>Picks are graded on a fixed 7-day-close rule; backtests ignore fees, slippage and taxes and use past data.</li>
<li>Echo is a simulator with paper money; its results say nothing about real trading.</li>
<li>Demo data, used when no chain source is configured, is labelled as such and is not real activity.</li></ul>
<h2>Your decisions</h2>
<p>Crypto-assets are volatile and you can lose all of what you invest. Decide for yourself, and consult a licensed
adviser where appropriate. We are not a broker, exchange, investment adviser or fund, and hold no assets for users.</p>
<h2>Public data licence</h2>
<p>Data of the public API and badge is licensed under
<a href="https://creativecommons.org/licenses/by/4.0/">CC-BY-4.0</a>. Attribute it as "Whale Intelligence" with a link.</p>`)

export const cookiePolicyPage = (c: LegalContext) => sitePage({ title: "Cookie policy", description: "The cookies Whale Intelligence sets." }, `
<h1>Cookie policy</h1>${updated(c)}
<p>We use only cookies that are strictly necessary to keep you signed in. There are no analytics, advertising or
third-party cookies, so there is nothing to consent to and no banner.</p>
<div class="scroll"><table><thead><tr><th>Name</th><th>Purpose</th><th>Lifetime</th></tr></thead><tbody>
<tr><td>whale_token</td><td>your signed session token; sent on every request of the site so the server knows who you are</td><td>the session token's life (minutes); renewed while you use the site</td></tr>
<tr><td>whale_refresh</td><td>renews the session token; sent only to the sign-in endpoints (<code>/auth</code>)</td><td>the session's life (days); removed at sign-out</td></tr>
</tbody></table></div>
<p>Both are HttpOnly (scripts cannot read them), SameSite=Lax (not sent with cross-site form posts) and Secure over
HTTPS. The console also keeps a "signed in" flag and your display preferences in your browser's local storage; it
holds no personal data and never leaves your browser.</p>
<p>You can delete cookies in your browser at any time; you will then be signed out. See also the
<a href="/privacy">privacy policy</a>.</p>`)
