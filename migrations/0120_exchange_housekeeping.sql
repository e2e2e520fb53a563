-- Issue 28, parts 3 and 5: exchange housekeeping is no flow; the figures count whales only.
--
-- 1. `exchange_housekeeping`: a transfer between two exchange wallets (hot <-> cold, a deposit address swept into its
--    exchange, one exchange paying another), decoded by server/domains/chain/Decode.ts when the tracked wallet is
--    itself an exchange wallet. Stored in whale_tx like any record (reorgs, retractions and listings work as before)
--    and counted NOWHERE: the roll-ups below skip it, so whale_flow_hourly / whale_flow_daily / playbook_flow_hourly
--    keep their columns and only ever hold flows (exchange_* columns = movements between an exchange and a
--    non-exchange address). No roll-up table or column changes.
ALTER TABLE whale_tx DROP CONSTRAINT IF EXISTS whale_tx_category_check;
ALTER TABLE whale_tx ADD CONSTRAINT whale_tx_category_check
  CHECK (category IN ('dex_buy', 'dex_sell', 'exchange_deposit', 'exchange_withdraw', 'exchange_housekeeping'));

-- 2. Whether a wallet's records count in the figures: not when the identity engine (migration 0110) holds it for a
--    bot, router, pool, exchange or bridge (schema/identity.ts FIGURE_EXCLUDED_CLASSES; keep the two lists equal).
--    Read at write time by the playbook's roll-up (it sums wallets away, so it cannot filter when read); the
--    analytics reads join wallet_identity themselves (server/domains/analytics/Whales.ts), so `include=bots` works.
CREATE OR REPLACE FUNCTION whale_counted(p_wallet text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT NOT EXISTS (SELECT 1 FROM wallet_identity i WHERE i.address = p_wallet
    AND i.class IN ('mev_bot', 'router', 'pool', 'exchange', 'bridge'))
$$;

-- 3. The whale_tx roll-ups (migrations 0030, 0033) without housekeeping.
CREATE OR REPLACE FUNCTION whale_flow_apply(p_sign integer, p_ts timestamptz[], p_token text[], p_wallet text[], p_symbol text[],
                                 p_category text[], p_usd numeric[], p_source text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO whale_flow_hourly AS f (hour, token, wallet, symbol, dex_buy_usd, dex_sell_usd, exchange_withdraw_usd,
    exchange_deposit_usd, dex_buys, dex_sells, exchange_withdraws, exchange_deposits)
  SELECT date_trunc('hour', c.ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', c.token, c.wallet, max(c.symbol),
    p_sign * coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_buy'), 0),
    p_sign * coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_sell'), 0),
    p_sign * coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_withdraw'), 0),
    p_sign * coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_deposit'), 0),
    p_sign * count(*) FILTER (WHERE c.category = 'dex_buy'),
    p_sign * count(*) FILTER (WHERE c.category = 'dex_sell'),
    p_sign * count(*) FILTER (WHERE c.category = 'exchange_withdraw'),
    p_sign * count(*) FILTER (WHERE c.category = 'exchange_deposit')
  FROM unnest(p_ts, p_token, p_wallet, p_symbol, p_category, p_usd) AS c(ts, token, wallet, symbol, category, usd)
  WHERE c.category <> 'exchange_housekeeping'
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (hour, token, wallet) DO UPDATE SET
    symbol = EXCLUDED.symbol,
    dex_buy_usd = f.dex_buy_usd + EXCLUDED.dex_buy_usd,
    dex_sell_usd = f.dex_sell_usd + EXCLUDED.dex_sell_usd,
    exchange_withdraw_usd = f.exchange_withdraw_usd + EXCLUDED.exchange_withdraw_usd,
    exchange_deposit_usd = f.exchange_deposit_usd + EXCLUDED.exchange_deposit_usd,
    dex_buys = f.dex_buys + EXCLUDED.dex_buys,
    dex_sells = f.dex_sells + EXCLUDED.dex_sells,
    exchange_withdraws = f.exchange_withdraws + EXCLUDED.exchange_withdraws,
    exchange_deposits = f.exchange_deposits + EXCLUDED.exchange_deposits;

  INSERT INTO whale_flow_daily AS f (day, token, wallet, symbol, dex_buy_usd, dex_sell_usd, exchange_withdraw_usd,
    exchange_deposit_usd, dex_buys, dex_sells, exchange_withdraws, exchange_deposits)
  SELECT (c.ts AT TIME ZONE 'UTC')::date, c.token, c.wallet, max(c.symbol),
    p_sign * coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_buy'), 0),
    p_sign * coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_sell'), 0),
    p_sign * coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_withdraw'), 0),
    p_sign * coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_deposit'), 0),
    p_sign * count(*) FILTER (WHERE c.category = 'dex_buy'),
    p_sign * count(*) FILTER (WHERE c.category = 'dex_sell'),
    p_sign * count(*) FILTER (WHERE c.category = 'exchange_withdraw'),
    p_sign * count(*) FILTER (WHERE c.category = 'exchange_deposit')
  FROM unnest(p_ts, p_token, p_wallet, p_symbol, p_category, p_usd) AS c(ts, token, wallet, symbol, category, usd)
  WHERE c.category <> 'exchange_housekeeping'
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (day, token, wallet) DO UPDATE SET
    symbol = EXCLUDED.symbol,
    dex_buy_usd = f.dex_buy_usd + EXCLUDED.dex_buy_usd,
    dex_sell_usd = f.dex_sell_usd + EXCLUDED.dex_sell_usd,
    exchange_withdraw_usd = f.exchange_withdraw_usd + EXCLUDED.exchange_withdraw_usd,
    exchange_deposit_usd = f.exchange_deposit_usd + EXCLUDED.exchange_deposit_usd,
    dex_buys = f.dex_buys + EXCLUDED.dex_buys,
    dex_sells = f.dex_sells + EXCLUDED.dex_sells,
    exchange_withdraws = f.exchange_withdraws + EXCLUDED.exchange_withdraws,
    exchange_deposits = f.exchange_deposits + EXCLUDED.exchange_deposits;

  INSERT INTO whale_source_daily AS s (day, source, records)
  SELECT (c.ts AT TIME ZONE 'UTC')::date, c.source, p_sign * count(*)
  FROM unnest(p_ts, p_source) AS c(ts, source)
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (day, source) DO UPDATE SET records = s.records + EXCLUDED.records;

  IF p_sign < 0 THEN
    DELETE FROM whale_flow_hourly f
    USING (SELECT DISTINCT date_trunc('hour', c.ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, c.token, c.wallet
           FROM unnest(p_ts, p_token, p_wallet) AS c(ts, token, wallet)) k
    WHERE f.hour = k.hour AND f.token = k.token AND f.wallet = k.wallet
      AND f.dex_buys = 0 AND f.dex_sells = 0 AND f.exchange_withdraws = 0 AND f.exchange_deposits = 0;
    DELETE FROM whale_flow_daily f
    USING (SELECT DISTINCT (c.ts AT TIME ZONE 'UTC')::date AS day, c.token, c.wallet
           FROM unnest(p_ts, p_token, p_wallet) AS c(ts, token, wallet)) k
    WHERE f.day = k.day AND f.token = k.token AND f.wallet = k.wallet
      AND f.dex_buys = 0 AND f.dex_sells = 0 AND f.exchange_withdraws = 0 AND f.exchange_deposits = 0;
    DELETE FROM whale_source_daily WHERE records = 0;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION whale_tx_rollup_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO whale_flow_hourly AS f (hour, token, wallet, symbol, dex_buy_usd, dex_sell_usd, exchange_withdraw_usd,
    exchange_deposit_usd, dex_buys, dex_sells, exchange_withdraws, exchange_deposits)
  SELECT date_trunc('hour', c.ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', c.token, c.wallet, max(c.symbol),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_buy'), 0),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_sell'), 0),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_withdraw'), 0),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_deposit'), 0),
    count(*) FILTER (WHERE c.category = 'dex_buy'),
    count(*) FILTER (WHERE c.category = 'dex_sell'),
    count(*) FILTER (WHERE c.category = 'exchange_withdraw'),
    count(*) FILTER (WHERE c.category = 'exchange_deposit')
  FROM new_rows c
  WHERE c.category <> 'exchange_housekeeping'
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (hour, token, wallet) DO UPDATE SET
    symbol = EXCLUDED.symbol,
    dex_buy_usd = f.dex_buy_usd + EXCLUDED.dex_buy_usd,
    dex_sell_usd = f.dex_sell_usd + EXCLUDED.dex_sell_usd,
    exchange_withdraw_usd = f.exchange_withdraw_usd + EXCLUDED.exchange_withdraw_usd,
    exchange_deposit_usd = f.exchange_deposit_usd + EXCLUDED.exchange_deposit_usd,
    dex_buys = f.dex_buys + EXCLUDED.dex_buys,
    dex_sells = f.dex_sells + EXCLUDED.dex_sells,
    exchange_withdraws = f.exchange_withdraws + EXCLUDED.exchange_withdraws,
    exchange_deposits = f.exchange_deposits + EXCLUDED.exchange_deposits;

  INSERT INTO whale_flow_daily AS f (day, token, wallet, symbol, dex_buy_usd, dex_sell_usd, exchange_withdraw_usd,
    exchange_deposit_usd, dex_buys, dex_sells, exchange_withdraws, exchange_deposits)
  SELECT (c.ts AT TIME ZONE 'UTC')::date, c.token, c.wallet, max(c.symbol),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_buy'), 0),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_sell'), 0),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_withdraw'), 0),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_deposit'), 0),
    count(*) FILTER (WHERE c.category = 'dex_buy'),
    count(*) FILTER (WHERE c.category = 'dex_sell'),
    count(*) FILTER (WHERE c.category = 'exchange_withdraw'),
    count(*) FILTER (WHERE c.category = 'exchange_deposit')
  FROM new_rows c
  WHERE c.category <> 'exchange_housekeeping'
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (day, token, wallet) DO UPDATE SET
    symbol = EXCLUDED.symbol,
    dex_buy_usd = f.dex_buy_usd + EXCLUDED.dex_buy_usd,
    dex_sell_usd = f.dex_sell_usd + EXCLUDED.dex_sell_usd,
    exchange_withdraw_usd = f.exchange_withdraw_usd + EXCLUDED.exchange_withdraw_usd,
    exchange_deposit_usd = f.exchange_deposit_usd + EXCLUDED.exchange_deposit_usd,
    dex_buys = f.dex_buys + EXCLUDED.dex_buys,
    dex_sells = f.dex_sells + EXCLUDED.dex_sells,
    exchange_withdraws = f.exchange_withdraws + EXCLUDED.exchange_withdraws,
    exchange_deposits = f.exchange_deposits + EXCLUDED.exchange_deposits;

  INSERT INTO whale_source_daily AS s (day, source, records)
  SELECT (c.ts AT TIME ZONE 'UTC')::date, c.source, count(*)
  FROM new_rows c
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (day, source) DO UPDATE SET records = s.records + EXCLUDED.records;
  RETURN NULL;
END $$;

-- 4. The playbook's hourly roll-up (migration 0072) without housekeeping and without non-whale wallets.
CREATE OR REPLACE FUNCTION playbook_flow_rebuild(p_hours timestamptz[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM playbook_flow_hourly WHERE hour = ANY(p_hours);
  INSERT INTO playbook_flow_hourly (hour, dex_buy_usd, dex_sell_usd, exchange_withdraw_usd, exchange_deposit_usd, records, wallets)
  SELECT h.hour,
    coalesce(sum(x.usd) FILTER (WHERE x.category = 'dex_buy'), 0),
    coalesce(sum(x.usd) FILTER (WHERE x.category = 'dex_sell'), 0),
    coalesce(sum(x.usd) FILTER (WHERE x.category = 'exchange_withdraw'), 0),
    coalesce(sum(x.usd) FILTER (WHERE x.category = 'exchange_deposit'), 0),
    count(*),
    playbook_bits(array_agg(DISTINCT w.n))
  FROM (SELECT DISTINCT unnest(p_hours) AS hour) h
  JOIN whale_tx x ON x.ts >= h.hour AND x.ts < h.hour + interval '1 hour'
  JOIN playbook_wallet_numbers w ON w.wallet = x.wallet
  WHERE x.category <> 'exchange_housekeeping' AND whale_counted(x.wallet)
  GROUP BY h.hour ORDER BY h.hour;
END $$;

CREATE OR REPLACE FUNCTION playbook_flow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- New wallets get the next numbers (the NOT EXISTS keeps known wallets from using up numbers).
  INSERT INTO playbook_wallet_numbers (wallet)
  SELECT d.wallet FROM (SELECT DISTINCT wallet FROM new_rows) d
  WHERE NOT EXISTS (SELECT 1 FROM playbook_wallet_numbers k WHERE k.wallet = d.wallet)
  ORDER BY d.wallet
  ON CONFLICT (wallet) DO NOTHING;

  INSERT INTO playbook_flow_hourly AS f (hour, dex_buy_usd, dex_sell_usd, exchange_withdraw_usd, exchange_deposit_usd, records, wallets)
  SELECT date_trunc('hour', c.ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_buy'), 0),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'dex_sell'), 0),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_withdraw'), 0),
    coalesce(sum(c.usd) FILTER (WHERE c.category = 'exchange_deposit'), 0),
    count(*),
    playbook_bits(array_agg(DISTINCT w.n))
  FROM new_rows c JOIN playbook_wallet_numbers w ON w.wallet = c.wallet
  WHERE c.category <> 'exchange_housekeeping' AND whale_counted(c.wallet)
  GROUP BY 1 ORDER BY 1
  ON CONFLICT (hour) DO UPDATE SET
    dex_buy_usd = f.dex_buy_usd + EXCLUDED.dex_buy_usd,
    dex_sell_usd = f.dex_sell_usd + EXCLUDED.dex_sell_usd,
    exchange_withdraw_usd = f.exchange_withdraw_usd + EXCLUDED.exchange_withdraw_usd,
    exchange_deposit_usd = f.exchange_deposit_usd + EXCLUDED.exchange_deposit_usd,
    records = f.records + EXCLUDED.records,
    wallets = playbook_bits_pad(f.wallets, greatest(length(f.wallets), length(EXCLUDED.wallets)))
      | playbook_bits_pad(EXCLUDED.wallets, greatest(length(f.wallets), length(EXCLUDED.wallets)));
  RETURN NULL;
END $$;

-- 5. Records stored before: an exchange flow whose wallet is itself an exchange wallet (labelled, or found by the
--    identity engine) was housekeeping. The update triggers move their sums out of the roll-ups.
UPDATE whale_tx x SET category = 'exchange_housekeeping',
  venue = CASE WHEN e.exchange IS NULL OR x.venue IS NULL OR x.venue = e.exchange THEN coalesce(e.exchange, x.venue)
               WHEN x.category = 'exchange_deposit' THEN e.exchange || ' → ' || x.venue
               ELSE x.venue || ' → ' || e.exchange END
FROM (
  SELECT address, exchange FROM address_labels WHERE category = 'exchange'
  UNION ALL
  SELECT i.address, i.exchange FROM wallet_identity i
  WHERE i.class = 'exchange' AND NOT EXISTS (SELECT 1 FROM address_labels l WHERE l.address = i.address)
) e
WHERE e.address = x.wallet AND x.category IN ('exchange_deposit', 'exchange_withdraw');
