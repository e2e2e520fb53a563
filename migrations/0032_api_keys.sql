-- API keys of the keyed data API (server/domains/apikeys) and its daily usage (server/gateways/dataapi, actors/quota-counter).
-- Keys: `whk_live_` + 32 base62 characters; only the sha256 (hex) is stored, with the first 12 characters as the
-- prefix shown in lists and used to revoke. At most 10 active keys per user (checked by the service).

CREATE TABLE api_keys (
  id           bigserial PRIMARY KEY,
  user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name         text NOT NULL,
  prefix       text NOT NULL,
  key_hash     text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_user ON api_keys (user_id) WHERE revoked_at IS NULL;
CREATE UNIQUE INDEX api_keys_active_prefix ON api_keys (user_id, prefix) WHERE revoked_at IS NULL;

-- Requests per account and per key per UTC day, as counted in Redis (the highest count reported wins, so a
-- re-delivered usage event changes nothing).
CREATE TABLE api_usage_daily (
  user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  day          date NOT NULL,
  requests     integer NOT NULL,
  daily_limit  integer NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, day)
);

CREATE TABLE api_key_usage_daily (
  key_id     bigint NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  day        date NOT NULL,
  requests   integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, day)
);

-- One warning e-mail per account, day and threshold (80, 100 percent).
CREATE TABLE api_quota_warnings (
  user_id   bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  day       date NOT NULL,
  threshold integer NOT NULL CHECK (threshold IN (80, 100)),
  sent_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, day, threshold)
);
