/**
 * The chain domain's SQL (migrations 0010, 0011): reference tables, whale_tx, the listener's checkpoint and the
 * recent blocks it has seen. Writes of many rows are one `INSERT … SELECT FROM unnest(…)` statement each, so the
 * statement-level triggers built on whale_tx fire once per block or batch, never per row.
 * Database faults are defects here (the adapter boundary).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { recordId, type RecordSource, type WhaleTx } from "../../../schema/records"
import { arrayLiteral, type ArrayElement } from "../../platform/infra/PgArray"
import type { Label, ResolvedToken, WalletRow, WhaleRecord } from "./Types"
import { spanned } from "../../platform/ops/Spans"

/** A whale_tx row as stored: the record's columns under their column names (exact amounts as text), no label. */
export type StoredTx = Readonly<Omit<WhaleTx, "block" | "ts" | "wallet_label"> & { block_number: number; ts: Date }>

export interface StoredBlock {
  readonly number: number
  readonly hash: string
  readonly eth_usd: number | null
  readonly eth_usd_block: number | null
}

export interface BlockToStore {
  readonly number: number
  readonly hash: string
  readonly parentHash: string
  readonly timestamp: number
  readonly records: ReadonlyArray<WhaleRecord>
  readonly ethUsd: { readonly price: number; readonly block: number } | null
}

/**
 * `authoritative` (the listener): a record already stored from another block hash (a backfill that saw a block
 * later orphaned) is moved to this block, and stored rows of this height from another hash are deleted.
 * Otherwise (backfill) existing rows are never touched.
 */
export type InsertMode = "authoritative" | "keep-existing"

const RETURNING = `RETURNING id, tx_hash, log_index, block_number, ts, wallet, token, symbol, category, amount::text AS amount,
  usd, price_usd, counter_token, counter_symbol, venue, source`

/** The first re-read of a token stored as unknown (then back-off: TokenRereads.ts). */
export const TOKEN_REREAD_FIRST_SECONDS = 300

const key = (r: WhaleRecord) => recordId({ tx_hash: r.txHash, log_index: r.logIndex, wallet: r.wallet, token: r.token })

export class ChainRepo extends Effect.Service<ChainRepo>()("app/ChainRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * One statement for the whole batch. Each column travels as one array literal (PgArray.ts) that `unnest` turns
     * back into rows. A key twice in the batch: DO NOTHING keeps the first on its own; DO UPDATE may not touch a
     * row twice in one statement, so there the batch is reduced to the last record of each key first.
     */
    const insertStatement = (records: ReadonlyArray<WhaleRecord>, source: RecordSource, mode: InsertMode) => {
      const unique = mode === "keep-existing" ? records : [...new Map(records.map((r) => [key(r), r])).values()]
      if (unique.length === 0) return null
      const col = (pick: (r: WhaleRecord) => ArrayElement) => arrayLiteral(unique, pick)
      const onConflict = mode === "keep-existing"
        ? sql`DO NOTHING`
        : sql`DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, ts = EXCLUDED.ts,
            symbol = EXCLUDED.symbol, decimals = EXCLUDED.decimals, category = EXCLUDED.category, amount = EXCLUDED.amount,
            amount_raw = EXCLUDED.amount_raw, usd = EXCLUDED.usd, price_usd = EXCLUDED.price_usd,
            counter_token = EXCLUDED.counter_token, counter_symbol = EXCLUDED.counter_symbol,
            counter_amount = EXCLUDED.counter_amount, venue = EXCLUDED.venue, source = EXCLUDED.source, eth_via = EXCLUDED.eth_via
          WHERE whale_tx.block_hash <> EXCLUDED.block_hash`
      return sql`
        INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, decimals, category, amount, amount_raw, usd,
          price_usd, counter_token, counter_symbol, counter_amount, venue, block_number, block_hash, ts, eth_via, source)
        SELECT i.*, ${source}::text FROM unnest(${col((r) => r.txHash)}::text[], ${col((r) => r.logIndex)}::int[],
          ${col((r) => r.wallet)}::text[], ${col((r) => r.token)}::text[], ${col((r) => r.symbol)}::text[],
          ${col((r) => r.decimals)}::int[], ${col((r) => r.category)}::text[], ${col((r) => r.amount)}::numeric[],
          ${col((r) => r.amountRaw)}::numeric[], ${col((r) => r.usd)}::numeric[], ${col((r) => r.priceUsd)}::numeric[],
          ${col((r) => r.counterToken)}::text[], ${col((r) => r.counterSymbol)}::text[], ${col((r) => r.counterAmount)}::numeric[],
          ${col((r) => r.venue)}::text[], ${col((r) => r.block)}::int8[], ${col((r) => r.blockHash)}::text[],
          ${col((r) => r.ts.toISOString())}::timestamptz[], ${col((r) => r.ethVia ?? null)}::text[]) AS i
        ON CONFLICT (tx_hash, log_index, wallet, token) ${onConflict}`
    }

    return spanned("ChainRepo", {
      /** Stores a batch of records (bulk paths: backfill); returns how many were new. Existing rows stay. */
      insertRecords: (records: ReadonlyArray<WhaleRecord>, source: RecordSource) => {
        const insert = insertStatement(records, source, "keep-existing")
        return insert === null ? Effect.succeed(0) : sql<{ n: number }>`WITH written AS (${insert} RETURNING 1)
          SELECT count(*)::int AS n FROM written`.pipe(Effect.map((rows) => rows[0]!.n), Effect.orDie)
      },

      /**
       * One block, atomically: its records, its row in chain_blocks and the checkpoint. Returns the rows written
       * (new, or moved from another block); a block delivered twice writes nothing the second time.
       */
      storeBlock: (checkpoint: string, block: BlockToStore, source: RecordSource) =>
        sql.withTransaction(Effect.gen(function* () {
          yield* sql`DELETE FROM whale_tx WHERE block_number = ${block.number} AND block_hash <> ${block.hash}`
          const insert = insertStatement(block.records, source, "authoritative")
          const written = insert === null ? [] : yield* sql<StoredTx>`${insert} ${sql.literal(RETURNING)}`
          yield* sql`
            INSERT INTO chain_blocks (number, hash, parent_hash, ts, records, eth_usd, eth_usd_block, published_at)
            VALUES (${block.number}, ${block.hash}, ${block.parentHash}, ${new Date(block.timestamp * 1000)},
              ${block.records.length}, ${block.ethUsd?.price ?? null}, ${block.ethUsd?.block ?? null},
              ${written.length === 0 ? sql`now()` : null})
            ON CONFLICT (number) DO UPDATE SET hash = EXCLUDED.hash, parent_hash = EXCLUDED.parent_hash, ts = EXCLUDED.ts,
              records = EXCLUDED.records, eth_usd = EXCLUDED.eth_usd, eth_usd_block = EXCLUDED.eth_usd_block,
              published_at = EXCLUDED.published_at, seen_at = now()`
          yield* sql`
            INSERT INTO chain_checkpoint (name, block_number, block_hash) VALUES (${checkpoint}, ${block.number}, ${block.hash})
            ON CONFLICT (name) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, updated_at = now()`
          return written
        })).pipe(Effect.orDie),

      checkpoint: (name: string) =>
        sql<{ block_number: number; block_hash: string }>`
          SELECT block_number, block_hash FROM chain_checkpoint WHERE name = ${name}`.pipe(
          Effect.map((rows) => (rows[0] === undefined ? null : { number: rows[0].block_number, hash: rows[0].block_hash })),
          Effect.orDie
        ),

      blockAt: (number: number) =>
        sql<StoredBlock>`SELECT number, hash, eth_usd, eth_usd_block FROM chain_blocks WHERE number = ${number}`.pipe(
          Effect.map((rows) => rows[0] ?? null),
          Effect.orDie
        ),

      /**
       * Undoes every block above `fork` (orphaned by a reorg): deletes their records (by block hash) and rows, and
       * moves the checkpoint back to `fork`. Returns the number of records deleted and those of them whose block
       * had been published (they need a retraction on `chain.tx`), in chain order.
       */
      /**
       * Rolls back everything above `fork`: the orphaned blocks' records, the blocks, the checkpoint. For each record
       * already published, `retraction` gives the message that retracts it, written to the retraction outbox in the
       * same transaction (published by the caller after commit, then `dropRetractions`).
       */
      rollback: <M extends { readonly messageId: string }>(checkpoint: string, fork: { readonly number: number; readonly hash: string },
        retraction: (row: StoredTx & { readonly block_hash: string }) => M) =>
        sql.withTransaction(Effect.gen(function* () {
          const deleted = yield* sql<StoredTx & { readonly block_hash: string; readonly published: boolean }>`
            WITH orphaned AS (SELECT hash, published_at IS NOT NULL AS published FROM chain_blocks WHERE number > ${fork.number}),
            gone AS (
              DELETE FROM whale_tx WHERE block_number > ${fork.number} AND block_hash IN (SELECT hash FROM orphaned)
              ${sql.literal(RETURNING)}, block_hash)
            SELECT gone.*, orphaned.published FROM gone JOIN orphaned ON orphaned.hash = gone.block_hash
            ORDER BY gone.block_number, gone.log_index, gone.wallet, gone.token`
          yield* sql`DELETE FROM chain_blocks WHERE number > ${fork.number}`
          yield* sql`UPDATE chain_checkpoint SET block_number = ${fork.number}, block_hash = ${fork.hash}, updated_at = now()
            WHERE name = ${checkpoint}`
          const retractions = deleted.filter((r) => r.published).map(retraction)
          if (retractions.length > 0) {
            yield* sql`INSERT INTO chain_retraction_outbox (message_id, payload)
              SELECT id, payload::jsonb FROM unnest(${arrayLiteral(retractions, (m) => m.messageId)}::text[],
                ${arrayLiteral(retractions, (m) => JSON.stringify(m))}::text[]) AS r(id, payload)
              ON CONFLICT (message_id) DO NOTHING`
          }
          return { deleted: deleted.length, retractions }
        })).pipe(Effect.orDie),
      /** Retractions a rollback wrote and nobody published yet (oldest first). */
      pendingRetractions: (limit: number) =>
        sql<{ message_id: string; payload: unknown }>`SELECT message_id, payload FROM chain_retraction_outbox ORDER BY created_at, message_id LIMIT ${limit}`.pipe(
          Effect.orDie),
      dropRetractions: (ids: ReadonlyArray<string>) =>
        ids.length === 0 ? Effect.void : sql`DELETE FROM chain_retraction_outbox WHERE message_id IN ${sql.in(ids)}`.pipe(Effect.asVoid, Effect.orDie),

      /** Forgets blocks below `number` (reorgs deeper than the kept history are not followed). */
      pruneBlocks: (below: number) => sql`DELETE FROM chain_blocks WHERE number < ${below}`.pipe(Effect.asVoid, Effect.orDie),

      markPublished: (number: number, hash: string) =>
        sql`UPDATE chain_blocks SET published_at = now() WHERE number = ${number} AND hash = ${hash}`.pipe(Effect.asVoid, Effect.orDie),

      /** Blocks whose records were stored but not (known to be) published, oldest first. */
      unpublished: (limit: number) =>
        sql<{ number: number; hash: string }>`
          SELECT number, hash FROM chain_blocks WHERE published_at IS NULL ORDER BY number LIMIT ${limit}`.pipe(Effect.orDie),

      /** The records of a block in chain_blocks (found through its number: whale_tx has no index on block_hash). */
      recordsOfBlock: (hash: string) =>
        sql<StoredTx>`
          SELECT id, tx_hash, log_index, block_number, ts, wallet, token, symbol, category, amount::text AS amount, usd,
            price_usd, counter_token, counter_symbol, venue, source
          FROM whale_tx WHERE block_number = (SELECT number FROM chain_blocks WHERE hash = ${hash} LIMIT 1) AND block_hash = ${hash}
          ORDER BY log_index, wallet, token`.pipe(Effect.orDie),

      // ---- reference data -------------------------------------------------------------------------------------

      tokens: sql<ResolvedToken>`SELECT address, symbol, decimals, stable, eth_derivative, blacklisted FROM tokens`.pipe(Effect.orDie),

      /** Tokens: the seed overwrites what it names; tokens read from the chain never overwrite the seed. Unchanged rows are not rewritten. */
      upsertTokens: (tokens: ReadonlyArray<ResolvedToken & { readonly source: "seed" | "chain" | "unknown" }>) =>
        tokens.length === 0 ? Effect.void : sql`
          INSERT INTO tokens (address, symbol, decimals, stable, eth_derivative, blacklisted, source, next_read_at)
          SELECT t.*, CASE WHEN t.source = 'unknown' THEN now() + ${`${TOKEN_REREAD_FIRST_SECONDS} seconds`}::interval END
          FROM unnest(${tokens.map((t) => t.address)}::text[], ${tokens.map((t) => t.symbol)}::text[],
            ${tokens.map((t) => t.decimals)}::int[], ${tokens.map((t) => t.stable)}::bool[],
            ${tokens.map((t) => t.eth_derivative)}::bool[], ${tokens.map((t) => t.blacklisted)}::bool[],
            ${tokens.map((t) => t.source)}::text[]) AS t(address, symbol, decimals, stable, eth_derivative, blacklisted, source)
          ON CONFLICT (address) DO UPDATE SET symbol = EXCLUDED.symbol, decimals = EXCLUDED.decimals, stable = EXCLUDED.stable,
            eth_derivative = EXCLUDED.eth_derivative, blacklisted = EXCLUDED.blacklisted, source = EXCLUDED.source,
            next_read_at = EXCLUDED.next_read_at, updated_at = now()
          WHERE (EXCLUDED.source = 'seed' OR tokens.source <> 'seed')
            AND (tokens.symbol, tokens.decimals, tokens.stable, tokens.eth_derivative, tokens.blacklisted, tokens.source)
              IS DISTINCT FROM (EXCLUDED.symbol, EXCLUDED.decimals, EXCLUDED.stable, EXCLUDED.eth_derivative, EXCLUDED.blacklisted, EXCLUDED.source)`
          .pipe(Effect.asVoid, Effect.orDie),

      labels: sql<{ address: string; name: string; category: string; exchange: string | null; venue: string | null }>`
        SELECT address, name, category, exchange, venue FROM address_labels`.pipe(Effect.orDie),

      upsertLabels: (labels: ReadonlyArray<Label>) =>
        labels.length === 0 ? Effect.void : sql`
          INSERT INTO address_labels (address, name, category, exchange, venue)
          SELECT * FROM unnest(${labels.map((l) => l.address)}::text[], ${labels.map((l) => l.name)}::text[],
            ${labels.map((l) => l.category)}::text[], ${labels.map((l) => (l.category === "exchange" ? l.exchange : null))}::text[],
            ${labels.map((l) => (l.category === "router" ? l.venue : null))}::text[])
          ON CONFLICT (address) DO UPDATE SET name = EXCLUDED.name, category = EXCLUDED.category,
            exchange = EXCLUDED.exchange, venue = EXCLUDED.venue
          WHERE (address_labels.name, address_labels.category, address_labels.exchange, address_labels.venue)
            IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.category, EXCLUDED.exchange, EXCLUDED.venue)`.pipe(Effect.asVoid, Effect.orDie),

      /** A custom request to monitor an address (idempotent); seed and imported rows are never touched. */
      trackCustomWallet: (address: string, label: string) =>
        sql`
          INSERT INTO tracked_wallets (address, label, cohort, source) VALUES (${address}, ${label}, 'mid', 'custom')
          ON CONFLICT (address) DO UPDATE SET active = true WHERE tracked_wallets.source = 'custom'`.pipe(Effect.asVoid, Effect.orDie),

      /**
       * A wallet found on chain joins the tracked set (source 'discovered'), or one that left comes back; rows of
       * other sources are never touched (false then). Whale discovery (identity domain) through ChainWallets.
       */
      trackDiscoveredWallet: (address: string, label: string, cohort: string) =>
        sql<{ address: string }>`
          INSERT INTO tracked_wallets (address, label, cohort, source) VALUES (${address}, ${label}, ${cohort}, 'discovered')
          ON CONFLICT (address) DO UPDATE SET active = true, cohort = EXCLUDED.cohort WHERE tracked_wallets.source = 'discovered'
          RETURNING address`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

      setDiscoveredCohort: (address: string, cohort: string) =>
        sql`UPDATE tracked_wallets SET cohort = ${cohort} WHERE address = ${address} AND source = 'discovered' AND cohort <> ${cohort}`
          .pipe(Effect.asVoid, Effect.orDie),

      untrackDiscoveredWallet: (address: string) =>
        sql`UPDATE tracked_wallets SET active = false WHERE address = ${address} AND source = 'discovered'`.pipe(Effect.asVoid, Effect.orDie),

      discoveredCount: sql<{ n: number }>`SELECT count(*)::int AS n FROM tracked_wallets WHERE source = 'discovered' AND active`
        .pipe(Effect.map((rows) => rows[0]?.n ?? 0), Effect.orDie),

      untrackCustomWallet: (address: string) =>
        sql`UPDATE tracked_wallets SET active = false WHERE address = ${address} AND source = 'custom'`.pipe(Effect.asVoid, Effect.orDie),

      /** An address's label (exchange, router, …) and tracked-wallet row, when it has them. */
      addressFacts: (address: string) =>
        Effect.all({
          label: sql<{ category: string; name: string }>`SELECT category, name FROM address_labels WHERE address = ${address}`,
          tracked: sql<{ label: string; cohort: string; source: string; active: boolean }>`SELECT label, cohort, source, active FROM tracked_wallets WHERE address = ${address}`
        }).pipe(Effect.map(({ label, tracked }) => ({ label: label[0] ?? null, tracked: tracked[0] ?? null })), Effect.orDie),

      activeWallets: sql<{ address: string; label: string }>`
        SELECT address, label FROM tracked_wallets WHERE active`.pipe(Effect.orDie),

      /** Changes whenever an active wallet is added, removed, (de)activated or relabelled. */
      walletsSignature: sql<{ n: number; h: string }>`
        SELECT count(*)::int AS n, coalesce(sum(hashtextextended(address || ' ' || label, 0)), 0)::text AS h
        FROM tracked_wallets WHERE active`.pipe(Effect.map((rows) => `${rows[0]!.n}:${rows[0]!.h}`), Effect.orDie),

      listWallets: sql<WalletRow>`
        SELECT address, label, cohort, source, active FROM tracked_wallets ORDER BY active DESC, label, address`.pipe(Effect.orDie),

      /** Seed wallets are added once: an operator's later edits and deactivations stand. */
      seedWallets: (wallets: ReadonlyArray<Omit<WalletRow, "active">>) =>
        wallets.length === 0 ? Effect.succeed(0) : sql`
          INSERT INTO tracked_wallets (address, label, cohort, source)
          SELECT * FROM unnest(${wallets.map((w) => w.address)}::text[], ${wallets.map((w) => w.label)}::text[],
            ${wallets.map((w) => w.cohort)}::text[], ${wallets.map((w) => w.source)}::text[])
          ON CONFLICT (address) DO NOTHING
          RETURNING address`.pipe(Effect.map((rows) => rows.length), Effect.orDie),

      /**
       * Imported wallets: new ones are added (source 'import', cohort 'mid' unless given); tracked ones are
       * relabelled, re-cohorted when a cohort is given, and reactivated.
       */
      importWallets: (wallets: ReadonlyArray<{ address: string; label: string; cohort?: string | undefined }>) =>
        sql<{ address: string; added: boolean }>`
          WITH input AS (
            SELECT * FROM unnest(${wallets.map((w) => w.address)}::text[], ${wallets.map((w) => w.label)}::text[],
              ${wallets.map((w) => w.cohort ?? null)}::text[]) AS i(address, label, cohort)),
          updated AS (
            UPDATE tracked_wallets w SET label = i.label, cohort = coalesce(i.cohort, w.cohort), active = true
            FROM input i WHERE w.address = i.address RETURNING w.address),
          added AS (
            INSERT INTO tracked_wallets (address, label, cohort, source)
            SELECT address, label, coalesce(cohort, 'mid'), 'import' FROM input WHERE address NOT IN (SELECT address FROM updated)
            ON CONFLICT (address) DO NOTHING RETURNING address)
          SELECT address, true AS added FROM added UNION ALL SELECT address, false FROM updated`.pipe(
          Effect.map((rows) => ({ added: rows.filter((r) => r.added).length, updated: rows.filter((r) => !r.added).length })),
          Effect.orDie
        ),

      /** Whether the chain tables exist (a dry run may read a database that was never migrated). */
      /** Listed tokens an address or a symbol names (exact, case-insensitive), the seed list's first. */
      tokensNamed: (query: string) =>
        sql<{ address: string; symbol: string }>`
          SELECT address, symbol FROM tokens
          WHERE (address = ${query.toLowerCase()} OR upper(symbol) = upper(${query})) AND NOT blacklisted AND source <> 'unknown'
          ORDER BY (address = ${query.toLowerCase()}) DESC, source = 'seed' DESC, address LIMIT 5`.pipe(Effect.orDie),
      /** Unknown tokens due for another read of their metadata, soonest first. */
      unknownTokensDue: (limit: number) =>
        sql<{ address: string; read_attempts: number }>`
          SELECT address, read_attempts FROM tokens WHERE source = 'unknown' AND next_read_at <= now()
          ORDER BY next_read_at LIMIT ${limit}`.pipe(Effect.orDie),
      /**
       * An unknown token resolved: its metadata stored (source 'chain'), and its stored records given the symbol,
       * the decimals and the amount those imply (amount_raw scaled). Only while it is still unknown (a seed or an
       * earlier resolution wins). Returns how many records changed, or null when the token was no longer unknown.
       */
      resolveUnknownToken: (address: string, symbol: string, decimals: number) =>
        Effect.gen(function* () {
          const updated = yield* sql`UPDATE tokens SET symbol = ${symbol}, decimals = ${decimals}, source = 'chain',
              read_attempts = read_attempts + 1, next_read_at = NULL, updated_at = now()
            WHERE address = ${address} AND source = 'unknown' RETURNING address`
          if (updated.length === 0) return null
          const records = yield* sql`UPDATE whale_tx SET symbol = ${symbol}, decimals = ${decimals},
              amount = amount_raw / (10::numeric ^ ${decimals})
            WHERE token = ${address} AND decimals IS NULL RETURNING id`
          return records.length
        }).pipe(sql.withTransaction, Effect.orDie),
      /** Another failed read: the next one at `next` (null: confirmed non-standard, not read again). */
      deferUnknownToken: (address: string, attempts: number, next: Date | null) =>
        sql`UPDATE tokens SET read_attempts = ${attempts}, next_read_at = ${next}, updated_at = now()
          WHERE address = ${address} AND source = 'unknown'`.pipe(Effect.asVoid, Effect.orDie),
      /** A listed token's decimals (null when unknown or not listed). */
      tokenDecimals: (address: string) =>
        sql<{ decimals: number | null }>`SELECT decimals FROM tokens WHERE address = ${address}`.pipe(Effect.map((r) => r[0]?.decimals ?? null), Effect.orDie),
      /** The newest priced record's price of a token (one probe of whale_tx_token_ts). */
      lastPrice: (token: string) =>
        sql<{ price: number }>`SELECT price_usd::float8 AS price FROM whale_tx WHERE token = ${token} AND price_usd IS NOT NULL ORDER BY ts DESC LIMIT 1`.pipe(
          Effect.map((r) => r[0]?.price ?? null), Effect.orDie),
      hasChainTables: sql<{ ok: boolean }>`SELECT to_regclass('tracked_wallets') IS NOT NULL AS ok`.pipe(
        Effect.map((rows) => rows[0]?.ok === true),
        Effect.orDie
      )
    } as const)
  })
}) {}
