-- Tiers and their public prices. `rank` orders them for gates (anon = 0 is implicit, never stored).
-- `staff` is the internal-only tier: present for gates, never returned by /api/pricing.
CREATE TABLE tiers (
  name                text PRIMARY KEY,
  rank                integer NOT NULL UNIQUE,
  public              boolean NOT NULL,
  display_name        text NOT NULL,
  tagline             text NOT NULL DEFAULT '',
  monthly_usd         numeric(10, 2) NOT NULL,
  yearly_usd          numeric(10, 2) NOT NULL,
  founding_yearly_usd numeric(10, 2),
  api_requests_per_day integer NOT NULL DEFAULT 0,
  alert_limit         integer NOT NULL DEFAULT 0,
  features            jsonb NOT NULL DEFAULT '[]'::jsonb,
  active              boolean NOT NULL DEFAULT true
);

INSERT INTO tiers (name, rank, public, display_name, tagline, monthly_usd, yearly_usd, founding_yearly_usd, api_requests_per_day, alert_limit, features) VALUES
 ('free', 1, true, 'Free', 'Watch the whales', 0, 0, NULL, 0, 3,
  '["feed_delayed","whale_index","top_tokens","watchlist","alerts_basic"]'),
 ('pro', 2, true, 'Pro', 'Real-time whale flow', 29, 290, 232, 0, 25,
  '["feed_delayed","whale_index","top_tokens","watchlist","alerts_basic","feed_realtime","positioning_full","alerts_email","alerts_messenger"]'),
 ('alpha', 3, true, 'Alpha', 'Signals and backtests', 79, 790, 632, 0, 100,
  '["feed_delayed","whale_index","top_tokens","watchlist","alerts_basic","feed_realtime","positioning_full","alerts_email","alerts_messenger","backtest","named_accumulators","picks"]'),
 ('whale', 4, true, 'Whale', 'Everything, with the data API', 199, 1990, 1592, 25000, 500,
  '["feed_delayed","whale_index","top_tokens","watchlist","alerts_basic","feed_realtime","positioning_full","alerts_email","alerts_messenger","backtest","named_accumulators","picks","api_keys","custom_wallets","playbook","echo"]'),
 ('staff', 9, false, 'Staff', 'Internal', 0, 0, NULL, 25000, 1000,
  '["feed_delayed","whale_index","top_tokens","watchlist","alerts_basic","feed_realtime","positioning_full","alerts_email","alerts_messenger","backtest","named_accumulators","picks","api_keys","custom_wallets","playbook","echo","internal"]');

-- The founding waitlist; one row per address (lower-cased), whatever the number of sign-ups.
CREATE TABLE waitlist (
  id                bigserial PRIMARY KEY,
  email             text NOT NULL UNIQUE,
  source            text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  drip_step         integer NOT NULL DEFAULT 0,
  next_drip_at      timestamptz DEFAULT now(),
  unsubscribe_token text NOT NULL UNIQUE,
  unsubscribed_at   timestamptz
);
CREATE INDEX waitlist_drip_due ON waitlist (next_drip_at) WHERE unsubscribed_at IS NULL;
