-- Echo, the copy-trading simulator (server/domains/echo). Money columns are numeric (exact); quantities are token
-- units. Invariants kept by the one write path (EchoBook.apply, under the portfolio row lock):
--   cash >= 0; each command applied once (echo_trades.command_id / echo_commands.command_id unique);
--   a holding's quantity = sum of its BUY quantities - sum of its SELL quantities since the last reset.

CREATE TABLE echo_portfolios (
  user_id     bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  start_cash  numeric NOT NULL CHECK (start_cash > 0),
  cash        numeric NOT NULL CHECK (cash >= 0),
  -- realized P&L since the last reset (sum of the SELL trades' realized_pnl)
  realized    numeric NOT NULL DEFAULT 0,
  -- the number of resets; the leaderboard shows it and counts days from started_at
  resets      integer NOT NULL DEFAULT 0,
  started_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  -- bumped by every applied command: the live valuation and caches key on it
  version     bigint NOT NULL DEFAULT 0
);

-- One row per token held; deleted when the quantity reaches zero. cost = quantity x average entry (fees included).
CREATE TABLE echo_holdings (
  user_id    bigint NOT NULL REFERENCES echo_portfolios (user_id) ON DELETE CASCADE,
  token      text NOT NULL,
  symbol     text NOT NULL,
  quantity   numeric NOT NULL CHECK (quantity > 0),
  cost       numeric NOT NULL CHECK (cost >= 0),
  opened_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, token)
);

-- Every applied trade. The whale's own price sits beside the follower's fill, with the delay, slippage and gas.
CREATE TABLE echo_trades (
  id            bigserial PRIMARY KEY,
  user_id       bigint NOT NULL REFERENCES echo_portfolios (user_id) ON DELETE CASCADE,
  command_id    text NOT NULL UNIQUE,
  origin        text NOT NULL CHECK (origin IN ('manual', 'copy', 'auto', 'retraction')),
  side          text NOT NULL CHECK (side IN ('BUY', 'SELL')),
  token         text NOT NULL,
  symbol        text NOT NULL,
  quantity      numeric NOT NULL CHECK (quantity > 0),
  -- the follower's fill per unit (slippage included) and the notional (quantity x fill price)
  price         numeric NOT NULL CHECK (price > 0),
  usd           numeric NOT NULL,
  -- the reference price before slippage (the delayed market price) and the whale's own price (copies only)
  market_price  numeric NOT NULL,
  whale_price   numeric,
  slippage_bps  numeric NOT NULL DEFAULT 0,
  gas_usd       numeric NOT NULL DEFAULT 0,
  delay_blocks  integer NOT NULL DEFAULT 0,
  fill_block    bigint,
  liquidity_usd numeric,
  -- SELL: proceeds - gas - cost of the quantity sold at the average entry; BUY: null
  realized_pnl  numeric,
  -- SELL: the holding's average entry at the time (for analytics), and when that position was opened
  entry_price   numeric,
  opened_at     timestamptz,
  -- the copied whale record
  whale_tx_hash text,
  whale_log     integer,
  whale_wallet  text,
  whale_block   bigint,
  whale_usd     numeric,
  -- a copy whose whale record a reorg retracted is reversed by a 'retraction' trade naming it here
  reverses      bigint REFERENCES echo_trades (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX echo_trades_user ON echo_trades (user_id, id DESC);
CREATE INDEX echo_trades_whale ON echo_trades (whale_tx_hash, whale_log) WHERE whale_tx_hash IS NOT NULL;

-- Outcomes of commands that changed nothing (rejections, skips), so a redelivered command answers the same.
CREATE TABLE echo_commands (
  command_id text PRIMARY KEY,
  user_id    bigint NOT NULL,
  outcome    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX echo_commands_created ON echo_commands (created_at);

-- Auto-copy: chosen whale wallets per user, with the sizing rule and a per-trade cap.
CREATE TABLE echo_autocopy (
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  wallet     text NOT NULL,
  mode       text NOT NULL CHECK (mode IN ('fixed', 'fraction')),
  -- fixed: USD per trade; fraction: share of the whale's USD size (0 < f <= 1)
  amount     numeric NOT NULL CHECK (amount > 0),
  cap_usd    numeric NOT NULL CHECK (cap_usd > 0),
  copy_sells boolean NOT NULL DEFAULT true,
  enabled    boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, wallet)
);
CREATE INDEX echo_autocopy_wallet ON echo_autocopy (wallet) WHERE enabled;

-- Auto-copy skips, kept as shadow positions: what the skipped trade would have bought, valued at live prices.
CREATE TABLE echo_shadow (
  id            bigserial PRIMARY KEY,
  user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  command_id    text NOT NULL UNIQUE,
  reason        text NOT NULL,
  side          text NOT NULL CHECK (side IN ('BUY', 'SELL')),
  token         text NOT NULL,
  symbol        text NOT NULL,
  usd           numeric NOT NULL,
  price         numeric,
  quantity      numeric,
  whale_tx_hash text NOT NULL,
  whale_log     integer NOT NULL,
  whale_wallet  text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX echo_shadow_user ON echo_shadow (user_id, id DESC);

-- Echo's admin settings (`echo_live`, `echo_free_preview`); every process re-reads them within seconds.
CREATE TABLE echo_settings (
  key        text PRIMARY KEY,
  value      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by bigint
);
INSERT INTO echo_settings (key, value) VALUES ('echo_live', 'true'), ('echo_free_preview', 'false');
