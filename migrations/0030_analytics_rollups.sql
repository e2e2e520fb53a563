-- Roll-ups of whale_tx for the analytics read models (server/domains/analytics). Requests read these and bounded index
-- ranges of whale_tx, never whole-table scans.
--
--   whale_flow_hourly  per UTC hour × token × wallet: USD and record counts of the four categories
--   whale_flow_daily   the same per UTC day (index, positioning, 7d/30d windows)
--   whale_source_daily records per UTC day and source (rpc/replay/demo/internal: flags demo data in responses)
--
-- Kept exact by STATEMENT-level triggers with transition tables on whale_tx: one aggregate per inserting,
-- deleting (reorg rollback) or updating (a record moved to another block) statement, whatever its row count.
-- Records without a USD price count as records and add 0 USD.

CREATE TABLE whale_flow_hourly (
  hour                  timestamptz NOT NULL,
  token                 text NOT NULL,
  wallet                text NOT NULL,
  symbol                text NOT NULL,
  dex_buy_usd           numeric NOT NULL DEFAULT 0,
  dex_sell_usd          numeric NOT NULL DEFAULT 0,
  exchange_withdraw_usd numeric NOT NULL DEFAULT 0,
  exchange_deposit_usd  numeric NOT NULL DEFAULT 0,
  dex_buys              integer NOT NULL DEFAULT 0,
  dex_sells             integer NOT NULL DEFAULT 0,
  exchange_withdraws    integer NOT NULL DEFAULT 0,
  exchange_deposits     integer NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, token, wallet)
);

CREATE TABLE whale_flow_daily (
  day                   date NOT NULL,
  token                 text NOT NULL,
  wallet                text NOT NULL,
  symbol                text NOT NULL,
  dex_buy_usd           numeric NOT NULL DEFAULT 0,
  dex_sell_usd          numeric NOT NULL DEFAULT 0,
  exchange_withdraw_usd numeric NOT NULL DEFAULT 0,
  exchange_deposit_usd  numeric NOT NULL DEFAULT 0,
  dex_buys              integer NOT NULL DEFAULT 0,
  dex_sells             integer NOT NULL DEFAULT 0,
  exchange_withdraws    integer NOT NULL DEFAULT 0,
  exchange_deposits     integer NOT NULL DEFAULT 0,
  PRIMARY KEY (day, token, wallet)
);
CREATE INDEX whale_flow_daily_wallet ON whale_flow_daily (wallet, day);

CREATE TABLE whale_source_daily (
  day     date NOT NULL,
  source  text NOT NULL,
  records integer NOT NULL,
  PRIMARY KEY (day, source)
);

-- Adds (p_sign = 1) or removes (p_sign = -1) a set of whale_tx rows from the roll-ups; rows that reach zero
-- records are deleted. Input rows are grouped and sorted by key, so concurrent batches lock in the same order.
CREATE FUNCTION whale_flow_apply(p_sign integer, p_ts timestamptz[], p_token text[], p_wallet text[], p_symbol text[],
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

CREATE FUNCTION whale_tx_rollup_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM whale_flow_apply(1, array_agg(ts), array_agg(token), array_agg(wallet), array_agg(symbol), array_agg(category),
    array_agg(usd), array_agg(source)) FROM new_rows HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION whale_tx_rollup_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM whale_flow_apply(-1, array_agg(ts), array_agg(token), array_agg(wallet), array_agg(symbol), array_agg(category),
    array_agg(usd), array_agg(source)) FROM old_rows HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION whale_tx_rollup_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM whale_flow_apply(-1, array_agg(ts), array_agg(token), array_agg(wallet), array_agg(symbol), array_agg(category),
    array_agg(usd), array_agg(source)) FROM old_rows HAVING count(*) > 0;
  PERFORM whale_flow_apply(1, array_agg(ts), array_agg(token), array_agg(wallet), array_agg(symbol), array_agg(category),
    array_agg(usd), array_agg(source)) FROM new_rows HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION whale_tx_rollup_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE whale_flow_hourly, whale_flow_daily, whale_source_daily;
  RETURN NULL;
END $$;

-- Whatever is already stored counts from the start.
SELECT whale_flow_apply(1, array_agg(ts), array_agg(token), array_agg(wallet), array_agg(symbol), array_agg(category),
  array_agg(usd), array_agg(source)) FROM whale_tx HAVING count(*) > 0;

CREATE TRIGGER whale_tx_rollup_insert AFTER INSERT ON whale_tx
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION whale_tx_rollup_insert();
CREATE TRIGGER whale_tx_rollup_delete AFTER DELETE ON whale_tx
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION whale_tx_rollup_delete();
CREATE TRIGGER whale_tx_rollup_update AFTER UPDATE ON whale_tx
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION whale_tx_rollup_update();
CREATE TRIGGER whale_tx_rollup_truncate AFTER TRUNCATE ON whale_tx
  FOR EACH STATEMENT EXECUTE FUNCTION whale_tx_rollup_truncate();
