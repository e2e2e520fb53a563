-- Chain reference data and the normalized whale transactions (owned by the chain domain, server/domains/chain).

-- Tokens: seeded from data/tokens.json at start; unknown ones resolved over JSON-RPC on first sight
-- (`source` 'chain'), or kept as unknown when their calls revert (`source` 'unknown', symbol 'UNKNOWN').
CREATE TABLE tokens (
  address        text PRIMARY KEY,
  symbol         text NOT NULL,
  decimals       integer,
  stable         boolean NOT NULL DEFAULT false,
  eth_derivative boolean NOT NULL DEFAULT false,
  blacklisted    boolean NOT NULL DEFAULT false,
  source         text NOT NULL DEFAULT 'seed' CHECK (source IN ('seed', 'chain', 'unknown')),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

-- Labelled addresses: exchange wallets (deposits/withdrawals) and routers/aggregators (venues).
CREATE TABLE address_labels (
  address  text PRIMARY KEY,
  name     text NOT NULL,
  category text NOT NULL CHECK (category IN ('exchange', 'router', 'fund', 'other')),
  exchange text,
  venue    text
);

-- Wallets whose transactions are recorded.
CREATE TABLE tracked_wallets (
  id       bigserial PRIMARY KEY,
  address  text NOT NULL UNIQUE,
  label    text NOT NULL,
  cohort   text NOT NULL CHECK (cohort IN ('mega', 'large', 'mid', 'small')),
  source   text NOT NULL CHECK (source IN ('seed', 'import', 'custom', 'discovered')),
  active   boolean NOT NULL DEFAULT true,
  added_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tracked_wallets_label ON tracked_wallets (lower(label) text_pattern_ops);

-- One row per wallet × token movement of a transaction. `usd`/`price_usd` stay NULL without a usable price.
-- `log_index` is the lowest log position of the movement (-1 when only native ETH moved). Native ETH is WETH.
CREATE TABLE whale_tx (
  id             bigserial PRIMARY KEY,
  tx_hash        text NOT NULL,
  log_index      integer NOT NULL,
  wallet         text NOT NULL,
  token          text NOT NULL,
  symbol         text NOT NULL,
  decimals       integer,
  category       text NOT NULL CHECK (category IN ('dex_buy', 'dex_sell', 'exchange_deposit', 'exchange_withdraw')),
  amount         numeric NOT NULL,
  amount_raw     numeric(78, 0) NOT NULL,
  usd            numeric(24, 2),
  price_usd      numeric,
  counter_token  text,
  counter_symbol text,
  counter_amount numeric,
  venue          text,
  block_number   bigint NOT NULL,
  block_hash     text NOT NULL,
  ts             timestamptz NOT NULL,
  source         text NOT NULL CHECK (source IN ('rpc', 'replay', 'demo', 'internal')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tx_hash, log_index, wallet, token)
);
CREATE INDEX whale_tx_ts ON whale_tx (ts DESC);
CREATE INDEX whale_tx_token_ts ON whale_tx (token, ts DESC);
CREATE INDEX whale_tx_wallet_ts ON whale_tx (wallet, ts DESC);
CREATE INDEX whale_tx_block ON whale_tx (block_number);

-- The listener's position and the recent chain it has seen (reorg detection walks back through it).
CREATE TABLE chain_checkpoint (
  name         text PRIMARY KEY,
  block_number bigint NOT NULL,
  block_hash   text NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE chain_blocks (
  number      bigint PRIMARY KEY,
  hash        text NOT NULL,
  parent_hash text NOT NULL,
  ts          timestamptz NOT NULL,
  records     integer NOT NULL DEFAULT 0,
  seen_at     timestamptz NOT NULL DEFAULT now()
);
