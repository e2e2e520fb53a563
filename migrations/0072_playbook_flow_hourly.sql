-- The playbook's own roll-up of whale_tx per UTC hour (server/domains/playbook/FlowRepo.ts): one row per hour with
-- the hour's totals and the SET of wallets active in it, so that the figures of an event window, its baseline slots
-- and its 8 matched weeks (about 40 spans, 1,700 hours) read one small row per hour instead of every
-- hour × token × wallet row of whale_flow_hourly (as many rows as records when whales rarely repeat within an hour).
-- "Whales active" over a span is the number of distinct wallets, which per-hour counts cannot give (a wallet active
-- in two hours counts once): each wallet gets a small number, each hour a bit string with that wallet's bit set,
-- and a span's distinct wallets are bit_count(bit_or(hours' bit strings)) — exact.
--
--   playbook_wallet_numbers  wallet → its bit (0, 1, 2, … in order of first record; never reused)
--   playbook_flow_hourly     hour → USD sums of the four categories, records, and the bit string of its wallets
--
-- Kept current by statement-level triggers on whale_tx (after the analytics roll-up triggers, by name): an insert
-- adds its batch (sums added, bits OR-ed in); a delete (reorg rollback) or an update that moves a record (its time,
-- wallet, category or USD) rebuilds the hours it touched from whale_tx (bounded: one hour of records each); an update
-- of other columns (a token's symbol and decimals resolved later) costs nothing more. Records without a USD price count
-- as records and add 0 USD, as in whale_flow_hourly. Records are written by the block listener (a singleton) and the
-- backfill CLI, so a rebuild does not race another batch of the same hour.

CREATE TABLE playbook_wallet_numbers (
  wallet text PRIMARY KEY,
  n      integer GENERATED ALWAYS AS IDENTITY (MINVALUE 0 START WITH 0) UNIQUE
);

CREATE TABLE playbook_flow_hourly (
  hour                  timestamptz PRIMARY KEY,
  dex_buy_usd           numeric NOT NULL DEFAULT 0,
  dex_sell_usd          numeric NOT NULL DEFAULT 0,
  exchange_withdraw_usd numeric NOT NULL DEFAULT 0,
  exchange_deposit_usd  numeric NOT NULL DEFAULT 0,
  records               integer NOT NULL DEFAULT 0,
  -- bit n (from the left) set: the wallet numbered n has a record in this hour. As long as the highest n set + 1.
  wallets               bit varying NOT NULL
) WITH (fillfactor = 70);

-- `b` padded with zeros to `len` bits (bit strings must be as long as each other to be OR-ed).
CREATE FUNCTION playbook_bits_pad(b bit varying, len integer) RETURNS bit varying
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN length(b) >= len THEN b ELSE b || repeat('0', len - length(b))::bit varying END
$$;

-- The bit string with the bits `ns` set (as long as the highest + 1); NULLs are ignored.
CREATE FUNCTION playbook_bits(ns integer[]) RETURNS bit varying
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  b bit varying := repeat('0', coalesce((SELECT max(x) FROM unnest(ns) x) + 1, 0))::bit varying;
  x integer;
BEGIN
  FOREACH x IN ARRAY coalesce(ns, '{}') LOOP
    IF x IS NOT NULL THEN b := set_bit(b, x, 1); END IF;
  END LOOP;
  RETURN b;
END $$;

-- Rebuilds the given hours from whale_tx (an hour without records loses its row).
CREATE FUNCTION playbook_flow_rebuild(p_hours timestamptz[]) RETURNS void
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
  GROUP BY h.hour ORDER BY h.hour;
END $$;

CREATE FUNCTION playbook_flow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE FUNCTION playbook_flow_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM playbook_flow_rebuild(array_agg(DISTINCT date_trunc('hour', ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'))
  FROM old_rows HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION playbook_flow_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only records whose time, wallet, category or USD changed touch the roll-up (a token's symbol, decimals or amount
  -- set later do not: such an update costs a join of the transition tables and nothing more).
  -- A moved record may belong to a wallet not numbered yet.
  INSERT INTO playbook_wallet_numbers (wallet)
  SELECT DISTINCT n.wallet FROM old_rows o JOIN new_rows n ON n.id = o.id
  WHERE (o.ts, o.wallet, o.category, o.usd) IS DISTINCT FROM (n.ts, n.wallet, n.category, n.usd)
    AND NOT EXISTS (SELECT 1 FROM playbook_wallet_numbers k WHERE k.wallet = n.wallet)
  ORDER BY 1
  ON CONFLICT (wallet) DO NOTHING;
  PERFORM playbook_flow_rebuild(array_agg(DISTINCT date_trunc('hour', t.ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'))
  FROM old_rows o JOIN new_rows n ON n.id = o.id, LATERAL (VALUES (o.ts), (n.ts)) AS t(ts)
  WHERE (o.ts, o.wallet, o.category, o.usd) IS DISTINCT FROM (n.ts, n.wallet, n.category, n.usd)
  HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE FUNCTION playbook_flow_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE playbook_flow_hourly;
  RETURN NULL;
END $$;

-- Whatever is already stored counts from the start.
INSERT INTO playbook_wallet_numbers (wallet) SELECT DISTINCT wallet FROM whale_tx ORDER BY 1;
SELECT playbook_flow_rebuild(array_agg(DISTINCT date_trunc('hour', ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'))
FROM whale_tx HAVING count(*) > 0;

CREATE TRIGGER whale_tx_wallets_insert AFTER INSERT ON whale_tx
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION playbook_flow_insert();
CREATE TRIGGER whale_tx_wallets_delete AFTER DELETE ON whale_tx
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION playbook_flow_delete();
CREATE TRIGGER whale_tx_wallets_update AFTER UPDATE ON whale_tx
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION playbook_flow_update();
CREATE TRIGGER whale_tx_wallets_truncate AFTER TRUNCATE ON whale_tx
  FOR EACH STATEMENT EXECUTE FUNCTION playbook_flow_truncate();
