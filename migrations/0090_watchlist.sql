-- The per-user watchlist (server/domains/watchlist). Tokens are lower-case contract addresses; native ETH is WETH.
CREATE TABLE watchlist_items (
  id               bigserial PRIMARY KEY,
  user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token            text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  symbol           text NOT NULL,
  -- the last whale-trade price known when the item was added (NULL when none was known)
  price_at_add_usd numeric,
  source           text NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'quick_add', 'pending')),
  added_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, token)
);
CREATE INDEX watchlist_items_user ON watchlist_items (user_id, id);
CREATE INDEX watchlist_items_token ON watchlist_items (token);

-- Tokens remembered for a just-signed-up (usually unverified) user; they join the watchlist when the e-mail is
-- verified, then the row goes.
CREATE TABLE watchlist_pending (
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token      text NOT NULL CHECK (token ~ '^0x[0-9a-f]{40}$'),
  symbol     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, token)
);

-- Categories a reader picked in an e-mail (`GET /watchlist/interest?s=`), one row per address and category.
CREATE TABLE watchlist_interests (
  id         bigserial PRIMARY KEY,
  email      text NOT NULL CHECK (email = lower(email)),
  user_id    bigint REFERENCES users (id) ON DELETE SET NULL,
  category   text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (email, category)
);
