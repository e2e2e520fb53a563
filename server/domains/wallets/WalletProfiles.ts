/**
 * A wallet as its page and the keyed wallet endpoints show it (issue 28 part 6, issue 29 part 1): who it is and why
 * (the identity domain), its place in the tracked set and size cohort (chain), its flows (the analytics roll-ups),
 * trades and exchange movements (analytics' record pages, on indexes), the picks it flagged (picks). No tables of
 * its own: every figure comes from the owning domain's service.
 *
 * Privacy: a custom wallet (tracked only because users monitor it, source `custom`) is seen by those users alone;
 * to anyone else every answer here is `null` — an address we know nothing of (the routes answer 404), whatever the
 * identity engine knows about it.
 *
 * Known: tracked (any source the viewer may see), or met by the identity engine with something to say (a class other
 * than `unknown`, a label, evidence, a correction, a block it was seen in). Everything else is `null`.
 */
import { Effect } from "effect"
import type { TransactionsData } from "../../../schema/http/dataapi"
import {
  WALLET_FLOW_DAY_ROWS, WALLET_FLOW_TOKENS, type WalletFlows as WalletFlowsData, type WalletHistoryEntry, type WalletIdentityView, type WalletPage,
  type WalletSize, type WalletSummary
} from "../../../schema/http/wallets"
import type { WhaleCategory } from "../../../schema/records"
import { CustomWallets } from "../alerts/wallets/CustomWallets"
import { Analytics } from "../analytics/Analytics"
import { WalletFlows } from "../analytics/WalletFlows"
import { ChainWallets } from "../chain/ChainWallets"
import { WhaleDiscovery, type CandidateRow } from "../identity/Discovery"
import type { HistoryEntry } from "../identity/History"
import { WalletIdentity, type IdentityView } from "../identity/WalletIdentity"
import { WalletPicks } from "../picks/WalletPicks"

/** Who asks: a signed-in user or an API key's owner (their custom wallets are theirs), or nobody. */
export type Viewer = { readonly userId: number } | null

type Cohort = "mega" | "large" | "mid" | "small"
const COHORTS: ReadonlySet<string> = new Set(["mega", "large", "mid", "small"])

export interface Visible {
  readonly tracked: WalletSummary["tracked"]
  /** The viewer's own label of their custom wallet. */
  readonly ownLabel: string | null
}

/** Evidence rows and corrections a page carries at most. */
const EVIDENCE = 20
const CORRECTIONS = 20
const PICKS = 50
const TOKENS_30D = 20
const EXCHANGE_ROWS = 20

export const identityView = (i: IdentityView): WalletIdentityView => ({
  kind: i.kind, delegate: i.delegate, class: i.class, class_source: i.classSource, exchange: i.exchange, label: i.label,
  label_source: i.labelSource, confidence: Math.round(i.confidence * 100) / 100, reasons: [...i.reasons],
  first_block: i.firstBlock, last_block: i.lastBlock
})

/** The wallet's size: the tracked set's cohort, and what whale discovery measured (nothing when it never did). */
export const sizeView = (cohort: Cohort | null, measured: CandidateRow | null): WalletSize => {
  const at = measured?.measured_at ?? null
  if (measured === null || at === null) return { cohort, holdings_usd: null, holdings: [], measured_at: null, measured_cohort: null }
  return {
    cohort, holdings_usd: measured.holdings_usd, measured_at: new Date(at).toISOString(), measured_cohort: measured.cohort,
    holdings: [...measured.holdings].sort((a, b) => (b.usd ?? 0) - (a.usd ?? 0)).map((h) => ({ symbol: h.symbol, units: h.units, usd: h.usd }))
  }
}

export const historyView = (h: HistoryEntry): WalletHistoryEntry => ({
  at: h.at.toISOString(), field: h.field, action: h.action, value: h.value, previous: h.previous,
  source: (h.source ?? null) as WalletHistoryEntry["source"], reason: h.reason,
  confidence: h.confidence === null ? null : Math.round(h.confidence * 100) / 100, block: h.block, correction: h.correction
})

/** Whether the identity engine has anything to say about an address. */
export const identityKnows = (i: IdentityView) =>
  i.class !== "unknown" || i.label !== null || i.firstBlock !== null || i.evidence.length > 0 || i.corrections.length > 0

export class WalletProfiles extends Effect.Service<WalletProfiles>()("app/wallets/WalletProfiles", {
  effect: Effect.gen(function* () {
    const identity = yield* WalletIdentity
    const chain = yield* ChainWallets
    const custom = yield* CustomWallets
    const analytics = yield* Analytics
    const flows = yield* WalletFlows
    const picks = yield* WalletPicks
    const discovery = yield* WhaleDiscovery

    /** What the viewer may see of the address's place in the tracked set; null: a custom wallet that is not theirs. */
    const visible = Effect.fn("WalletProfiles.visible")(function* (address: string, viewer: Viewer) {
      const { tracked } = yield* chain.describe(address)
      const cohort = (tracked !== null && COHORTS.has(tracked.cohort) ? tracked.cohort : "mid") as Cohort
      if (tracked !== null && tracked.source === "custom") {
        const own = viewer === null ? null : yield* custom.ownWallet(viewer.userId, address)
        if (own === null) return null
        return { tracked: { label: own.label ?? tracked.label, cohort, source: "custom", active: tracked.active }, ownLabel: own.label } satisfies Visible
      }
      return { tracked: tracked === null ? null : { label: tracked.label, cohort, source: tracked.source, active: tracked.active }, ownLabel: null } satisfies Visible
    })

    /** The summary (identity, size, 7d/30d flows), or null when the viewer may not see it or nothing is known. */
    const summaryOf = Effect.fn("WalletProfiles.summary")(function* (address: string, viewer: Viewer, trackedOnly: boolean) {
      const seen = yield* visible(address, viewer)
      if (seen === null || (trackedOnly && seen.tracked === null)) return null
      const who = yield* identity.identityOf(address)
      if (seen.tracked === null && !identityKnows(who)) return null
      const [{ windows, lastDay }, measured, history] = yield* Effect.all([
        flows.windows(address, [7, 30]), discovery.candidate(address), identity.timeline(address)
      ], { concurrency: "unbounded" })
      const summary: WalletSummary = {
        address, identity: identityView(who), tracked: seen.tracked,
        size: sizeView(seen.tracked?.cohort ?? null, measured), history: history.map(historyView),
        flows: { "7d": windows[0]!, "30d": windows[1]! }, last_active_day: lastDay
      }
      return { summary, who, seen }
    })

    /** The newest records of these categories, merged newest first. */
    const recordsOf = (address: string, categories: ReadonlyArray<WhaleCategory>, limit: number) =>
      Effect.forEach(categories, (category) => analytics.transactions({ wallet: address, category, limit }), { concurrency: "unbounded" }).pipe(
        Effect.map((pages) => pages.flatMap((p) => p.transactions).sort((a, b) => b.id - a.id).slice(0, limit))
      )

    return {
      visible,

      /** `GET /api/v1/wallets/{address}`: tracked wallets only. */
      summary: (address: string, viewer: Viewer) => Effect.map(summaryOf(address, viewer, true), (r) => r?.summary ?? null),

      /** The wallet page's first screen (without the anonymous delay, which the console applies). */
      page: Effect.fn("WalletProfiles.page")(function* (address: string, viewer: Viewer) {
        const found = yield* summaryOf(address, viewer, false)
        if (found === null) return null
        const { summary, who, seen } = found
        const [tokens, flagged, exchange, origin] = yield* Effect.all([
          flows.tokens(address, 30, TOKENS_30D),
          picks.ofWallet(address, PICKS),
          recordsOf(address, ["exchange_deposit", "exchange_withdraw"], EXCHANGE_ROWS),
          analytics.source()
        ], { concurrency: "unbounded" })
        return {
          ...summary,
          evidence: who.evidence.slice(0, EVIDENCE).map((e) => ({
            class: e.class, rule: e.rule, confidence: Math.round(e.confidence * 100) / 100, hits: e.hits, txs: [...e.txs], pool: e.pool,
            counterpart: e.counterpart, exchange: e.exchange, first_block: e.firstBlock, last_block: e.lastBlock
          })),
          corrections: who.corrections.slice(-CORRECTIONS).reverse().map((c) => ({
            action: c.action, field: c.field, value: c.value, reason: c.reason, at: c.created_at.toISOString()
          })),
          your_label: seen.ownLabel,
          tokens_30d: tokens,
          picks: flagged,
          exchange,
          delay_ms: 0,
          meta: { ...origin, generated_at: new Date().toISOString() }
        } satisfies WalletPage
      }),

      /** A page of the wallet's records (null: the viewer may not see the wallet or nothing is known of it). */
      trades: Effect.fn("WalletProfiles.trades")(function* (
        address: string, viewer: Viewer, q: { readonly before_id?: number | undefined; readonly category?: WhaleCategory | undefined; readonly limit: number }
      ) {
        const seen = yield* visible(address, viewer)
        if (seen === null) return null
        if (seen.tracked === null && !identityKnows(yield* identity.identityOf(address))) return null
        const page: TransactionsData = yield* analytics.transactions({ wallet: address, before_id: q.before_id, category: q.category, limit: q.limit })
        return { trades: page.transactions, next_before_id: page.next_before_id }
      }),

      /** `GET /api/v1/wallets/{address}/flows`: tracked wallets only; per token and per day over `days`. */
      flows: Effect.fn("WalletProfiles.flows")(function* (address: string, viewer: Viewer, days: number) {
        const seen = yield* visible(address, viewer)
        if (seen === null || seen.tracked === null) return null
        const [who, totals, tokens, daily] = yield* Effect.all([
          identity.identityOf(address),
          flows.windows(address, [days]),
          flows.tokens(address, days, WALLET_FLOW_TOKENS + 1),
          flows.daily(address, days, WALLET_FLOW_DAY_ROWS)
        ], { concurrency: "unbounded" })
        return {
          address, identity: identityView(who), days, from: daily.from, to: daily.to, totals: totals.windows[0]!,
          tokens: tokens.slice(0, WALLET_FLOW_TOKENS), daily: daily.rows, truncated: daily.truncated || tokens.length > WALLET_FLOW_TOKENS
        } satisfies WalletFlowsData
      })
    } as const
  })
}) {}
