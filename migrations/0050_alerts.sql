-- Alerts (issue 12): subscriptions, per-user channel settings, messenger connect codes, deliveries (one per alert
-- and record, unique), per-channel delivery state with attempts and latency, hourly budgets and custom wallets.

CREATE TABLE alert_subscriptions (
  id              bigserial PRIMARY KEY,
  user_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type            text NOT NULL CHECK (type IN ('whale_trade', 'wallet_activity', 'exchange_flow', 'convergence',
                                                'index_cross', 'playbook_live', 'pick_flagged')),
  name            text,
  params          jsonb NOT NULL,
  channels        text[] NOT NULL,
  enabled         boolean NOT NULL DEFAULT true,
  snoozed_until   timestamptz,
  last_fired_at   timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_subscriptions_user ON alert_subscriptions (user_id, id);

-- One row per user who touched alert settings; absent means the defaults (console and email on, nothing bound).
CREATE TABLE alert_user_settings (
  user_id                 bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  muted_until             timestamptz,
  messenger_enabled       boolean NOT NULL DEFAULT true,
  messenger_chat_id       text UNIQUE,
  messenger_username      text,
  messenger_connected_at  timestamptz,
  email_enabled           boolean NOT NULL DEFAULT true,
  console_enabled         boolean NOT NULL DEFAULT true,
  webhook_enabled         boolean NOT NULL DEFAULT false,
  webhook_url             text,
  webhook_secret          text,
  webhook_disabled_reason text,
  updated_at              timestamptz NOT NULL DEFAULT now()
);

-- Messenger connect codes: one live code per user, stored as an HMAC (never the code itself), 10 minutes.
CREATE TABLE alert_messenger_codes (
  user_id     bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  code_hash   text NOT NULL UNIQUE,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- A delivery: one matched (alert, record) pair. The unique key makes a re-delivered record send nothing twice.
-- `record_key` is `tx:<hash>:<log_index>:<wallet>` for chain records, `<event messageId>` for domain events,
-- `test:<uuid>` for test notifications.
CREATE TABLE alert_deliveries (
  id          bigserial PRIMARY KEY,
  alert_id    bigint REFERENCES alert_subscriptions (id) ON DELETE SET NULL,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type        text NOT NULL,
  record_key  text NOT NULL,
  title       text NOT NULL,
  summary     text NOT NULL,
  data        jsonb NOT NULL,
  channels    text[] NOT NULL,
  event_at    timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  test        boolean NOT NULL DEFAULT false,
  -- set when a reorg retracted the record: channels not yet sent are skipped, the history says so
  retracted_at timestamptz
);
CREATE UNIQUE INDEX alert_deliveries_once ON alert_deliveries (alert_id, record_key) WHERE alert_id IS NOT NULL;
CREATE INDEX alert_deliveries_user ON alert_deliveries (user_id, id DESC);

-- Per channel state of a delivery: status, attempts, the next retry, and latency (event time → delivered).
CREATE TABLE alert_delivery_channels (
  delivery_id     bigint NOT NULL REFERENCES alert_deliveries (id) ON DELETE CASCADE,
  channel         text NOT NULL CHECK (channel IN ('messenger', 'email', 'console', 'webhook')),
  status          text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'sending', 'sent', 'retrying', 'failed', 'digested', 'cooldown', 'skipped')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  delivered_at    timestamptz,
  latency_ms      bigint,
  error           text,
  PRIMARY KEY (delivery_id, channel)
);
CREATE INDEX alert_delivery_channels_due ON alert_delivery_channels (next_attempt_at) WHERE status = 'retrying';

-- Per-user hourly budget of sent notifications; overflow is folded into one digest per user and hour.
CREATE TABLE alert_budget (
  user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  hour         timestamptz NOT NULL,
  used         integer NOT NULL DEFAULT 0,
  overflow     integer NOT NULL DEFAULT 0,
  digest_sent  boolean NOT NULL DEFAULT false,
  PRIMARY KEY (user_id, hour)
);
CREATE INDEX alert_budget_digests ON alert_budget (hour) WHERE overflow > 0 AND NOT digest_sent;

-- Wallets a whale-tier user monitors; ingestion tracks them (tracked_wallets, source 'custom') from the next block.
CREATE TABLE alert_custom_wallets (
  id          bigserial PRIMARY KEY,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  address     text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  label       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, address)
);
CREATE INDEX alert_custom_wallets_address ON alert_custom_wallets (address);
