-- The wallet page and the keyed wallet endpoints (issue 28 part 6, issue 29 part 1): the reads they make, on indexes.
--   picks a wallet took part in: `flaggers @> ARRAY[wallet]` on a GIN index instead of a scan of every pick;
--   a wallet's exchange deposits and withdrawals (and any one category) newest first, without walking its DEX trades.
CREATE INDEX IF NOT EXISTS picks_flaggers ON picks USING gin (flaggers);
CREATE INDEX IF NOT EXISTS whale_tx_wallet_category_id ON whale_tx (wallet, category, id DESC);
