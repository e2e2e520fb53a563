-- Per-token history of the keyed data API (`GET /api/v1/tokens/{token}/history`, server/gateways/dataapi/History.ts):
-- read from the roll-ups, never from whale_tx.
--
--   whale_flow_hourly_token, whale_flow_daily_token   the roll-ups of migration 0030 by token, then time: one token's
--                                                     range reads its own rows (the primary keys lead with the time)
--   token_price_hourly   per token × UTC hour: USD and token amount of the priced whale DEX trades, so a bucket's price
--                        is their volume-weighted average (sum USD / sum amount), exact over any set of hours
--
-- Kept exact by statement-level triggers on whale_tx, as the other roll-ups: an insert adds its batch, a delete (reorg
-- rollback) removes it, an update removes the old rows and adds the new; a row reaching zero trades is deleted.
-- Only DEX trades with a USD value and a positive amount count.

CREATE INDEX whale_flow_hourly_token ON whale_flow_hourly (token, hour);
CREATE INDEX whale_flow_daily_token ON whale_flow_daily (token, day);

CREATE TABLE token_price_hourly (
  token      text NOT NULL,
  hour       timestamptz NOT NULL,
  usd        numeric NOT NULL DEFAULT 0,
  amount     numeric NOT NULL DEFAULT 0,
  trades     integer NOT NULL DEFAULT 0,
  PRIMARY KEY (token, hour)
);

CREATE FUNCTION token_price_apply(p_sign integer, p_ts timestamptz[], p_token text[], p_category text[], p_usd numeric[], p_amount numeric[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO token_price_hourly AS p (token, hour, usd, amount, trades)
  SELECT c.token, date_trunc('hour', c.ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', p_sign * sum(c.usd), p_sign * sum(c.amount), p_sign * count(*)
  FROM unnest(p_ts, p_token, p_category, p_usd, p_amount) AS c(ts, token, category, usd, amount)
  WHERE c.category IN ('dex_buy', 'dex_sell') AND c.usd IS NOT NULL AND c.amount > 0
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (token, hour) DO UPDATE SET usd = p.usd + EXCLUDED.usd, amount = p.amount + EXCLUDED.amount, trades = p.trades + EXCLUDED.trades;
  IF p_sign < 0 THEN
    DELETE FROM token_price_hourly p
    USING (SELECT DISTINCT c.token, date_trunc('hour', c.ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour
           FROM unnest(p_ts, p_token) AS c(ts, token)) k
    WHERE p.token = k.token AND p.hour = k.hour AND p.trades <= 0;
  END IF;
END $$;

CREATE FUNCTION token_price_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM token_price_apply(1, array_agg(ts), array_agg(token), array_agg(category), array_agg(usd), array_agg(amount)) FROM new_rows HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION token_price_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM token_price_apply(-1, array_agg(ts), array_agg(token), array_agg(category), array_agg(usd), array_agg(amount)) FROM old_rows HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION token_price_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only rows whose time, token, category, USD or amount changed (a symbol resolved later costs a join, nothing more).
  PERFORM token_price_apply(-1, array_agg(o.ts), array_agg(o.token), array_agg(o.category), array_agg(o.usd), array_agg(o.amount))
  FROM old_rows o JOIN new_rows n ON n.id = o.id
  WHERE (o.ts, o.token, o.category, o.usd, o.amount) IS DISTINCT FROM (n.ts, n.token, n.category, n.usd, n.amount) HAVING count(*) > 0;
  PERFORM token_price_apply(1, array_agg(n.ts), array_agg(n.token), array_agg(n.category), array_agg(n.usd), array_agg(n.amount))
  FROM old_rows o JOIN new_rows n ON n.id = o.id
  WHERE (o.ts, o.token, o.category, o.usd, o.amount) IS DISTINCT FROM (n.ts, n.token, n.category, n.usd, n.amount) HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION token_price_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE token_price_hourly;
  RETURN NULL;
END $$;

-- Whatever is already stored counts from the start.
SELECT token_price_apply(1, array_agg(ts), array_agg(token), array_agg(category), array_agg(usd), array_agg(amount)) FROM whale_tx HAVING count(*) > 0;

CREATE TRIGGER whale_tx_price_insert AFTER INSERT ON whale_tx
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION token_price_insert();
CREATE TRIGGER whale_tx_price_delete AFTER DELETE ON whale_tx
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION token_price_delete();
CREATE TRIGGER whale_tx_price_update AFTER UPDATE ON whale_tx
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION token_price_update();
CREATE TRIGGER whale_tx_price_truncate AFTER TRUNCATE ON whale_tx
  FOR EACH STATEMENT EXECUTE FUNCTION token_price_truncate();
