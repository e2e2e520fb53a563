/**
 * The identity domain's SQL (migration 0110): identities, rule evidence, class history, operators' corrections.
 * A block's changes are one transaction of three `INSERT … SELECT FROM unnest` statements (evidence, identities,
 * history), whatever the number of addresses. Database faults are defects here (the adapter boundary).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { arrayLiteral } from "../../platform/infra/PgArray"
import type { AddressState } from "./Book"
import type { Correction, Evidence, Identity, KindInfo, WalletClass } from "./Types"
import { spanned } from "../../platform/ops/Spans"

export interface IdentityRow {
  readonly address: string
  readonly kind: "eoa" | "contract" | "unknown"
  readonly delegate: string | null
  readonly class: WalletClass
  readonly class_source: Identity["classSource"]
  readonly exchange: string | null
  readonly label: string | null
  readonly label_source: Identity["labelSource"]
  readonly confidence: number
  readonly reasons: ReadonlyArray<string>
  readonly first_block: number | null
  readonly last_block: number | null
}

interface EvidenceRow {
  readonly address: string; readonly class: WalletClass; readonly rule: Evidence["rule"]; readonly confidence: number
  readonly hits: number; readonly txs: ReadonlyArray<string>; readonly pool: string | null; readonly counterpart: string | null
  readonly exchange: string | null; readonly first_block: number; readonly last_block: number
}

export interface StoredCorrection extends Correction {
  readonly id: number
  readonly operator: string | null
  readonly created_at: Date
}

export interface HistoryRow {
  readonly address: string; readonly class: WalletClass; readonly previous_class: WalletClass | null; readonly source: string | null
  readonly confidence: number; readonly reason: string | null; readonly block: number | null; readonly changed_at?: Date
}

export interface BlockChanges {
  readonly evidence: ReadonlyArray<{ readonly address: string; readonly evidence: Evidence }>
  readonly identities: ReadonlyArray<{ readonly identity: Identity; readonly firstBlock: number | null; readonly lastBlock: number | null }>
  readonly history: ReadonlyArray<HistoryRow>
}

const toEvidence = (r: EvidenceRow): Evidence => ({
  class: r.class, rule: r.rule, confidence: r.confidence, hits: r.hits, txs: r.txs, pool: r.pool, counterpart: r.counterpart,
  exchange: r.exchange, firstBlock: r.first_block, lastBlock: r.last_block
})

/** An address's state as stored (the book's memory is rebuilt from it). */
export const stateOf = (row: IdentityRow | undefined, evidence: ReadonlyArray<Evidence>): AddressState => {
  // Evidence is stored at every block that adds to it; the identity row's last block only now and then (Book.ts).
  const last = Math.max(row?.last_block ?? -1, ...evidence.map((e) => e.lastBlock))
  return {
    evidence: [...evidence],
    dirty: new Set(),
    version: -1,
    changedIn: -1,
    kind: row === undefined || row.kind === "unknown" ? null : ({ kind: row.kind, delegate: row.delegate } satisfies KindInfo),
    firstBlock: row?.first_block ?? null,
    lastBlock: last < 0 ? null : last,
    identity: row === undefined ? null : {
      address: row.address, kind: row.kind, delegate: row.delegate, class: row.class, classSource: row.class_source,
      exchange: row.exchange, label: row.label, labelSource: row.label_source, confidence: row.confidence, reasons: []
    },
    storedBlock: row?.last_block ?? null
  }
}

export class IdentityRepo extends Effect.Service<IdentityRepo>()("app/IdentityRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const list = (items: ReadonlyArray<string>) => arrayLiteral(items, (a) => a)

    const identities = (addresses: ReadonlyArray<string>) =>
      addresses.length === 0 ? Effect.succeed([] as ReadonlyArray<IdentityRow>) : sql<IdentityRow>`
        SELECT address, kind, delegate, class, class_source, exchange, label, label_source, confidence, reasons, first_block, last_block
        FROM wallet_identity WHERE address = ANY (${list(addresses)}::text[])`.pipe(Effect.orDie)
    const evidence = (addresses: ReadonlyArray<string>) =>
      addresses.length === 0 ? Effect.succeed([] as ReadonlyArray<EvidenceRow>) : sql<EvidenceRow>`
        SELECT address, class, rule, confidence, hits, txs, pool, counterpart, exchange, first_block, last_block
        FROM wallet_identity_evidence WHERE address = ANY (${list(addresses)}::text[]) ORDER BY address, confidence DESC`.pipe(Effect.orDie)

    return spanned("IdentityRepo", {
      /** Whether migration 0110 has run (a dry run never migrates). */
      hasTables: sql<{ ok: boolean }>`SELECT to_regclass('wallet_identity') IS NOT NULL AS ok`.pipe(
        Effect.map((rows) => rows[0]?.ok === true), Effect.orDie),

      identities,

      /** Every stored exchange wallet with its exchange's name (deposit addresses, corrections, labelled wallets). */
      exchangeWallets: sql<{ address: string; exchange: string }>`
        SELECT address, exchange FROM wallet_identity WHERE class = 'exchange' AND exchange IS NOT NULL`.pipe(Effect.orDie),

      /** The stored state of each address that has one (one query per table). */
      load: (addresses: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const [rows, proofs] = yield* Effect.all([identities(addresses), evidence(addresses)])
          const byAddress = new Map<string, Array<Evidence>>()
          for (const p of proofs) {
            const l = byAddress.get(p.address)
            if (l === undefined) byAddress.set(p.address, [toEvidence(p)])
            else l.push(toEvidence(p))
          }
          const rowOf = new Map(rows.map((r) => [r.address, r]))
          const out = new Map<string, AddressState>()
          for (const a of new Set([...rowOf.keys(), ...byAddress.keys()])) out.set(a, stateOf(rowOf.get(a), byAddress.get(a) ?? []))
          return out
        }),

      /** One block's changes, in one transaction. */
      store: (changes: BlockChanges) =>
        sql.withTransaction(Effect.gen(function* () {
          const ev = changes.evidence
          if (ev.length > 0) {
            const col = (pick: (e: { address: string; evidence: Evidence }) => string | number | null) => arrayLiteral(ev, pick)
            yield* sql`
              INSERT INTO wallet_identity_evidence (address, class, rule, confidence, hits, txs, pool, counterpart, exchange, first_block, last_block)
              SELECT a, c, r, conf, h, string_to_array(t, ','), p, cp, x, fb, lb
              FROM unnest(${col((e) => e.address)}::text[], ${col((e) => e.evidence.class)}::text[], ${col((e) => e.evidence.rule)}::text[],
                ${col((e) => e.evidence.confidence)}::float8[], ${col((e) => e.evidence.hits)}::int[], ${col((e) => e.evidence.txs.join(","))}::text[],
                ${col((e) => e.evidence.pool)}::text[], ${col((e) => e.evidence.counterpart)}::text[], ${col((e) => e.evidence.exchange)}::text[],
                ${col((e) => e.evidence.firstBlock)}::int8[], ${col((e) => e.evidence.lastBlock)}::int8[]) AS i(a, c, r, conf, h, t, p, cp, x, fb, lb)
              ON CONFLICT (address, class, rule) DO UPDATE SET confidence = EXCLUDED.confidence, hits = EXCLUDED.hits, txs = EXCLUDED.txs,
                pool = EXCLUDED.pool, counterpart = EXCLUDED.counterpart, exchange = EXCLUDED.exchange,
                first_block = LEAST(wallet_identity_evidence.first_block, EXCLUDED.first_block),
                last_block = GREATEST(wallet_identity_evidence.last_block, EXCLUDED.last_block), updated_at = now()`
          }
          const ids = changes.identities
          if (ids.length > 0) {
            const col = (pick: (e: (typeof ids)[number]) => string | number | null) => arrayLiteral(ids, pick)
            yield* sql`
              INSERT INTO wallet_identity (address, kind, delegate, class, class_source, exchange, label, label_source, confidence, reasons, first_block, last_block)
              SELECT a, k, d, c, cs, x, l, ls, conf, rs::jsonb, fb, lb
              FROM unnest(${col((e) => e.identity.address)}::text[], ${col((e) => e.identity.kind)}::text[], ${col((e) => e.identity.delegate)}::text[],
                ${col((e) => e.identity.class)}::text[], ${col((e) => e.identity.classSource)}::text[], ${col((e) => e.identity.exchange)}::text[],
                ${col((e) => e.identity.label)}::text[], ${col((e) => e.identity.labelSource)}::text[], ${col((e) => e.identity.confidence)}::float8[],
                ${col((e) => JSON.stringify(e.identity.reasons))}::text[], ${col((e) => e.firstBlock)}::int8[], ${col((e) => e.lastBlock)}::int8[])
                AS i(a, k, d, c, cs, x, l, ls, conf, rs, fb, lb)
              ON CONFLICT (address) DO UPDATE SET kind = EXCLUDED.kind, delegate = EXCLUDED.delegate, class = EXCLUDED.class,
                class_source = EXCLUDED.class_source, exchange = EXCLUDED.exchange, label = EXCLUDED.label, label_source = EXCLUDED.label_source,
                confidence = EXCLUDED.confidence, reasons = EXCLUDED.reasons,
                first_block = LEAST(wallet_identity.first_block, EXCLUDED.first_block),
                last_block = GREATEST(wallet_identity.last_block, EXCLUDED.last_block), updated_at = now()`
          }
          const hs = changes.history
          if (hs.length > 0) {
            const col = (pick: (h: HistoryRow) => string | number | null) => arrayLiteral(hs, pick)
            yield* sql`
              INSERT INTO wallet_identity_history (address, class, previous_class, source, confidence, reason, block)
              SELECT * FROM unnest(${col((h) => h.address)}::text[], ${col((h) => h.class)}::text[], ${col((h) => h.previous_class)}::text[],
                ${col((h) => h.source)}::text[], ${col((h) => h.confidence)}::float8[], ${col((h) => h.reason)}::text[], ${col((h) => h.block)}::int8[])`
          }
        })).pipe(Effect.orDie),

      history: (address: string) =>
        sql<HistoryRow>`SELECT address, class, previous_class, source, confidence, reason, block, changed_at
          FROM wallet_identity_history WHERE address = ${address} ORDER BY id`.pipe(Effect.orDie),

      /** Every correction, in order (a small table: operators write it by hand). */
      corrections: sql<StoredCorrection>`SELECT id::int AS id, address, action, field, value, exchange, reason, operator, created_at
        FROM wallet_identity_corrections ORDER BY id`.pipe(Effect.orDie),

      /** Changes whenever a correction is added (the listener reloads them then). */
      correctionsSignature: sql<{ n: number | null }>`SELECT max(id)::int AS n FROM wallet_identity_corrections`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0), Effect.orDie),

      addCorrection: (c: Correction, operator: string | null) =>
        sql<{ id: number }>`INSERT INTO wallet_identity_corrections (address, action, field, value, exchange, reason, operator)
          VALUES (${c.address}, ${c.action}, ${c.field}, ${c.value}, ${c.exchange}, ${c.reason}, ${operator}) RETURNING id::int AS id`.pipe(
          Effect.map((rows) => rows[0]!.id), Effect.orDie)
    } as const)
  })
}) {}
