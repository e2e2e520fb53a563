/** Stored rows → wire shapes (schema/http/playbook.ts). */
import { HIGH_SEVERITY, type PlaybookEvent, type WhaleRecord } from "../../../schema/http/playbook"
import type { RecordRow } from "./FlowRepo"
import type { EventRow } from "./Repo"
import { cents } from "./Stats"

export const eventView = (r: EventRow): PlaybookEvent => ({
  id: r.id,
  title: r.title,
  category: r.category,
  status: r.status,
  timestamp: r.ts.toISOString(),
  severity: r.severity,
  high_severity: r.severity >= HIGH_SEVERITY,
  tokens: [...r.tokens],
  description: r.description,
  source_url: r.source_url,
  origin: r.origin,
  live_at: r.live_at?.toISOString() ?? null,
  completed_at: r.completed_at?.toISOString() ?? null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  final_metrics: r.final_metrics
})

export const summaryView = (r: EventRow): Omit<PlaybookEvent, "final_metrics"> => {
  const { final_metrics: _m, ...rest } = eventView(r)
  return rest
}

export const recordView = (r: RecordRow, eventTs: number): WhaleRecord => ({
  id: r.id,
  tx_hash: r.tx_hash,
  ts: r.ts.toISOString(),
  wallet: r.wallet,
  wallet_label: r.wallet_label,
  token: r.token,
  symbol: r.symbol,
  category: r.category,
  usd: r.usd === null ? null : cents(r.usd),
  seconds_from_event: (r.ts.getTime() - eventTs) / 1000
})
