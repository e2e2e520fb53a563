-- The Whale Sentiment Index's daily closes (server/domains/analytics, written by the index-closer actor at each UTC day's
-- end and backfilled for missing days when it starts), and the indexes the data API's transaction pages use
-- (newest first by id, optionally filtered by token, wallet or category: each filter walks its own index).

CREATE TABLE whale_index_daily (
  day        date PRIMARY KEY,
  score      numeric(5, 1) NOT NULL CHECK (score BETWEEN 0 AND 100),
  label      text NOT NULL,
  components jsonb NOT NULL,
  closed_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX whale_tx_token_id ON whale_tx (token, id DESC);
CREATE INDEX whale_tx_wallet_id ON whale_tx (wallet, id DESC);
CREATE INDEX whale_tx_category_id ON whale_tx (category, id DESC);
CREATE INDEX tracked_wallets_address_prefix ON tracked_wallets (address text_pattern_ops);
