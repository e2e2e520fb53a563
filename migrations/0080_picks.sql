-- Picks (server/domains/picks): whale-flagged tokens graded on the 7-day-close rule, whale exits, and the
-- hash-chained ledger that makes every pick and grade verifiable. Owned by the picks domain; the picks-grader actor
-- writes it from `chain.tx`, `npm run picks -- rebuild` recomputes it from stored records.

-- The records the picks domain has consumed (its own copy of the inputs it needs, keyed like whale_tx): DEX buys and
-- sells and exchange deposits of eligible tokens (the flagging window, exits, the price series), and priced WETH
-- records (the ETH benchmark of backtests). `amount` is in token units; `usd`/`price_usd` NULL without a price.
-- A retraction (reorg) deletes the row.
CREATE TABLE pick_records (
  tx_hash   text NOT NULL,
  log_index integer NOT NULL,
  wallet    text NOT NULL,
  token     text NOT NULL,
  symbol    text NOT NULL,
  category  text NOT NULL CHECK (category IN ('dex_buy', 'dex_sell', 'exchange_deposit', 'exchange_withdraw')),
  amount    double precision NOT NULL,
  usd       double precision,
  price_usd double precision,
  ts        timestamptz NOT NULL,
  demo      boolean NOT NULL DEFAULT false,
  PRIMARY KEY (tx_hash, log_index, wallet, token)
);
CREATE INDEX pick_records_token_ts ON pick_records (token, ts);

-- One row per pick. status: PENDING until flagged_at + 7 × 24 h, then GRADED (7-day close known) or UNPRICED (not
-- enough prices: never guessed); VOID when a reorg took away the records that flagged it (kept, excluded from
-- statistics). Inputs of the flag are kept as they were at the flag (`inputs`), the conviction score never changes.
CREATE TABLE picks (
  id             bigserial PRIMARY KEY,
  token          text NOT NULL,
  symbol         text NOT NULL,
  flagged_at     timestamptz NOT NULL,
  -- The record whose arrival completed the flag: `tx_hash:log_index:wallet`.
  flag_record    text NOT NULL,
  entry_price    double precision,
  whales         integer NOT NULL CHECK (whales > 0),
  flaggers       text[] NOT NULL,
  flag_usd       double precision NOT NULL DEFAULT 0,
  conviction     double precision NOT NULL CHECK (conviction BETWEEN 0 AND 100),
  inputs         jsonb NOT NULL,
  status         text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'GRADED', 'UNPRICED', 'VOID')),
  -- Highest price seen after the flag so far (PENDING) or within the 7 days (graded), and the lowest.
  peak_price     double precision,
  trough_price   double precision,
  close_price    double precision,
  -- close_price / entry_price − 1, peak_price / entry_price − 1, min(0, trough_price / entry_price − 1).
  close_return   double precision,
  peak_return    double precision,
  max_adverse    double precision,
  -- Closes at flag + d × 24 h for d = 1..7 (NULL where no price had been seen after the flag yet).
  day_closes     double precision[],
  exited_before_close boolean,
  graded_at      timestamptz,
  -- Flagged from demo-chain records (labelled as such in every view).
  demo           boolean NOT NULL DEFAULT false,
  source         text NOT NULL DEFAULT 'live' CHECK (source IN ('live', 'rebuild')),
  -- When `PickFlagged` went out on `domain.events` (NULL: not yet; the grader publishes those at start).
  published_at   timestamptz,
  UNIQUE (token, flagged_at, flag_record)
);
-- At most one open pick per token (the flagging rule): the database enforces it for every process.
CREATE UNIQUE INDEX picks_open_token ON picks (token) WHERE status = 'PENDING';
CREATE INDEX picks_flagged_at ON picks (flagged_at DESC);
CREATE INDEX picks_symbol ON picks (upper(symbol), flagged_at DESC);
CREATE INDEX picks_pending_due ON picks (flagged_at) WHERE status = 'PENDING';
CREATE INDEX picks_unpublished ON picks (id) WHERE published_at IS NULL;

-- Every flagging whale's first exit of the token after the flag (within 30 days): a DEX sell or an exchange deposit.
-- day_offset: whole days since the flag (0 = the first 24 h); move: price at the exit / entry − 1 (NULL unpriced).
CREATE TABLE pick_exits (
  pick_id    bigint NOT NULL REFERENCES picks (id) ON DELETE CASCADE,
  wallet     text NOT NULL,
  ts         timestamptz NOT NULL,
  day_offset integer NOT NULL CHECK (day_offset BETWEEN 0 AND 30),
  hours      double precision NOT NULL,
  price      double precision,
  move       double precision,
  route      text NOT NULL CHECK (route IN ('dex_sell', 'exchange_deposit')),
  record     text NOT NULL,
  PRIMARY KEY (pick_id, wallet)
);
CREATE INDEX pick_exits_wallet ON pick_exits (wallet);

-- The ledger: append-only, hash-chained. hash = sha256(prev_hash || '\n' || payload) in hex, payload the canonical
-- JSON text of the entry (keys sorted). The first entry's prev_hash is 64 zeros. Nothing updates or deletes rows:
-- a trigger refuses it.
CREATE TABLE pick_ledger (
  seq        bigint PRIMARY KEY,
  at         timestamptz NOT NULL,
  kind       text NOT NULL CHECK (kind IN ('flag', 'exit', 'grade', 'void', 'rebuild')),
  pick_id    bigint,
  payload    text NOT NULL,
  prev_hash  text NOT NULL,
  hash       text NOT NULL UNIQUE
);
CREATE INDEX pick_ledger_pick ON pick_ledger (pick_id, kind);
CREATE INDEX pick_ledger_day ON pick_ledger (((at AT TIME ZONE 'UTC')::date), seq);

CREATE FUNCTION pick_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'pick_ledger is append-only';
END $$;
CREATE TRIGGER pick_ledger_no_update BEFORE UPDATE OR DELETE ON pick_ledger
  FOR EACH ROW EXECUTE FUNCTION pick_ledger_append_only();
CREATE TRIGGER pick_ledger_no_truncate BEFORE TRUNCATE ON pick_ledger
  FOR EACH STATEMENT EXECUTE FUNCTION pick_ledger_append_only();

-- Daily ETH/USD closes (last priced WETH record of each UTC day): the benchmark of backtests.
CREATE TABLE pick_eth_daily (
  day      date PRIMARY KEY,
  close    double precision NOT NULL,
  close_ts timestamptz NOT NULL
);
