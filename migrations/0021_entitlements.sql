-- Where a user's tier comes from (server/domains/accounts/Entitlements.ts computes the effective tier from these three).

-- Operator grants (`npm run admin -- set-tier`): one per user, stored as a grant, never as a fake subscription.
CREATE TABLE tier_grants (
  user_id    bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  tier       text NOT NULL REFERENCES tiers (name),
  granted_by text NOT NULL,
  note       text,
  granted_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz
);

-- Paid subscriptions, written by the billing domain (card and crypto providers).
CREATE TABLE subscriptions (
  id                       bigserial PRIMARY KEY,
  user_id                  bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider                 text NOT NULL CHECK (provider IN ('card', 'crypto')),
  tier                     text NOT NULL REFERENCES tiers (name),
  status                   text NOT NULL CHECK (status IN ('active', 'trialing', 'past_due', 'canceled', 'incomplete')),
  interval                 text NOT NULL CHECK (interval IN ('month', 'year')),
  price_usd                numeric(10, 2),
  current_period_end       timestamptz,
  cancel_at_period_end     boolean NOT NULL DEFAULT false,
  trial_end                timestamptz,
  canceled_at              timestamptz,
  cancel_reason            text,
  provider_customer_id     text,
  provider_subscription_id text,
  provider_price_id        text,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, provider_subscription_id)
);
CREATE INDEX subscriptions_user ON subscriptions (user_id);

-- The 7-day trial activated from an `activate_trial` link: at most one per user, ever.
CREATE TABLE trials (
  id         bigserial PRIMARY KEY,
  user_id    bigint NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
  tier       text NOT NULL REFERENCES tiers (name),
  started_at timestamptz NOT NULL DEFAULT now(),
  ends_at    timestamptz NOT NULL
);
