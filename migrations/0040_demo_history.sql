-- The demo chain's history (issue 11): the demo wallets the history trades with are tracked as source 'demo', and
-- one row records the history a first start generates (its seed and window) and how far it has been stored, so a
-- restart resumes instead of starting over and a later start does not generate it again.
ALTER TABLE tracked_wallets DROP CONSTRAINT IF EXISTS tracked_wallets_source_check;
ALTER TABLE tracked_wallets ADD CONSTRAINT tracked_wallets_source_check
  CHECK (source IN ('seed', 'import', 'custom', 'discovered', 'demo'));

CREATE TABLE demo_history (
  id          smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  seed        integer NOT NULL,
  days        integer NOT NULL CHECK (days >= 0),
  from_ts     timestamptz NOT NULL,
  to_ts       timestamptz NOT NULL CHECK (to_ts >= from_ts),
  -- Records are stored hour by hour in time order: everything before `stored_to` is in whale_tx.
  stored_to   timestamptz NOT NULL,
  records     bigint NOT NULL DEFAULT 0,
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
