-- Accounts, sessions and single-use link tokens (server/domains/accounts). E-mail addresses are stored lower-cased.
CREATE TABLE users (
  id                bigserial PRIMARY KEY,
  email             text NOT NULL UNIQUE CHECK (email = lower(email)),
  -- scrypt$<logN>$<r>$<p>$<salt b64url>$<hash b64url>
  password_hash     text NOT NULL,
  -- bumped on every password change or reset; reset links carry it, so older links die with the old password
  password_version  integer NOT NULL DEFAULT 0,
  display_name      text,
  email_verified_at timestamptz,
  -- the admin role, separate from the tier
  is_admin          boolean NOT NULL DEFAULT false,
  account_type      text NOT NULL DEFAULT 'personal' CHECK (account_type IN ('personal', 'business')),
  company_name      text,
  company_vat_id    text,
  company_address   text,
  company_country   text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CHECK (account_type = 'personal' OR company_name IS NOT NULL)
);

-- A session is a refresh-token family: every refresh token of one login belongs to it. Session JWTs carry its id
-- (`sid`), so revoking the row ends the session within one request.
CREATE TABLE sessions (
  id             text PRIMARY KEY,
  user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_used_at   timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  revoked_at     timestamptz,
  revoked_reason text,
  ip             text,
  user_agent     text
);
CREATE INDEX sessions_user ON sessions (user_id) WHERE revoked_at IS NULL;

-- Opaque refresh tokens, stored as sha256 hex. `rotated_at` set = already used: presenting it again revokes the family.
CREATE TABLE refresh_tokens (
  token_hash text PRIMARY KEY,
  session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  rotated_at timestamptz
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

-- Single-use signed links: a jti lands here when its link is used; a second use finds it.
CREATE TABLE used_tokens (
  jti        text PRIMARY KEY,
  kind       text NOT NULL,
  user_id    bigint,
  used_at    timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX used_tokens_expiry ON used_tokens (expires_at);
