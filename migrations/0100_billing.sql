-- Billing (server/domains/billing): subscriptions become real. The `subscriptions` table of 0021 stays (the
-- accounts domain's Entitlements reads it); billing owns its rows and extends it here.

-- Every status the card provider can report (Stripe's set); crypto subscriptions use active / canceled only.
ALTER TABLE subscriptions DROP CONSTRAINT IF EXISTS subscriptions_status_check;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_status_check
  CHECK (status IN ('active', 'trialing', 'past_due', 'canceled', 'incomplete', 'incomplete_expired', 'unpaid', 'paused'));
ALTER TABLE subscriptions
  -- the last invoice (card) or payment (crypto) that paid for the current period
  ADD COLUMN provider_invoice_id text,
  -- the provider's own time of the newest state applied: an older event never overwrites a newer one
  ADD COLUMN provider_state_at timestamptz,
  -- a downgrade waiting for the period end: re-subscribe at this tier/interval after expiry
  ADD COLUMN pending_tier text REFERENCES tiers (name),
  ADD COLUMN pending_interval text CHECK (pending_interval IN ('month', 'year')),
  ADD COLUMN ended_at timestamptz;
CREATE INDEX subscriptions_pending ON subscriptions (current_period_end) WHERE pending_tier IS NOT NULL;

-- One card-provider customer per user, created once.
CREATE TABLE billing_customers (
  user_id              bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  provider_customer_id text NOT NULL UNIQUE,
  created_at           timestamptz NOT NULL DEFAULT now()
);

-- Append-only history of every change to a subscription, with its cause.
CREATE TABLE subscription_history (
  id              bigserial PRIMARY KEY,
  subscription_id bigint REFERENCES subscriptions (id) ON DELETE CASCADE,
  user_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- card_event | crypto_ipn | user | schedule
  cause           text NOT NULL,
  -- the provider's event id, the payment id and status, or the user's action
  cause_ref       text,
  change          text NOT NULL,
  before          jsonb,
  after           jsonb,
  at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscription_history_user ON subscription_history (user_id, id);

CREATE FUNCTION subscription_history_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- deletes cascading from a deleted account (depth > 1) are allowed; anything else is refused
  IF TG_OP = 'DELETE' AND pg_trigger_depth() > 1 THEN RETURN OLD; END IF;
  RAISE EXCEPTION 'subscription_history is append-only';
END $$;
CREATE TRIGGER subscription_history_no_update BEFORE UPDATE OR DELETE ON subscription_history
  FOR EACH ROW EXECUTE FUNCTION subscription_history_append_only();

-- Every provider call that passed its signature check, recorded in the transaction of its effect.
-- card: Stripe's event id (evt_…); crypto: `<payment_id>:<payment_status>`.
CREATE TABLE billing_events (
  provider    text NOT NULL CHECK (provider IN ('card', 'crypto')),
  event_id    text NOT NULL,
  type        text NOT NULL,
  object_id   text,
  -- applied | ignored_type | unknown_customer | stale | no_change | amount_mismatch | …
  outcome     text NOT NULL,
  provider_at timestamptz,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);

-- Crypto invoices we asked the processor for; the IPN's order id names one.
CREATE TABLE crypto_invoices (
  id                  bigserial PRIMARY KEY,
  order_id            text NOT NULL UNIQUE,
  provider_invoice_id text UNIQUE,
  user_id             bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  tier                text NOT NULL REFERENCES tiers (name),
  interval            text NOT NULL CHECK (interval IN ('month', 'year')),
  price_usd           numeric(10, 2) NOT NULL,
  pay_currency        text,
  invoice_url         text,
  status              text NOT NULL DEFAULT 'open',
  created_at          timestamptz NOT NULL DEFAULT now(),
  paid_at             timestamptz
);
CREATE INDEX crypto_invoices_user ON crypto_invoices (user_id, id);

-- One row per payment id and status: a repeated IPN finds its row and changes nothing.
CREATE TABLE crypto_payments (
  payment_id    text NOT NULL,
  status        text NOT NULL,
  invoice_id    bigint REFERENCES crypto_invoices (id) ON DELETE CASCADE,
  price_amount  numeric(18, 8),
  actually_paid numeric(38, 18),
  pay_currency  text,
  outcome       text NOT NULL,
  received_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (payment_id, status)
);

-- Reasons: given with a cancellation, or the cancel flow's "downgraded"/"stayed" bookkeeping.
CREATE TABLE cancel_feedback (
  id         bigserial PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind       text NOT NULL CHECK (kind IN ('cancel_reason', 'flow_outcome')),
  reason     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Mails that must go once: (kind, ref) is taken in the transaction that queues the mail.
CREATE TABLE billing_mail_sent (
  kind      text NOT NULL,
  ref       text NOT NULL,
  outbox_id bigint,
  at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, ref)
);

-- Double opt-in of the founding waitlist: the drip starts only once the address confirmed.
ALTER TABLE waitlist ALTER COLUMN next_drip_at DROP DEFAULT;
UPDATE waitlist SET next_drip_at = NULL;
ALTER TABLE waitlist
  ADD COLUMN confirmed_at timestamptz,
  ADD COLUMN confirm_sent_at timestamptz,
  ADD COLUMN confirm_ip text;

-- Addresses that asked for no more marketing mail (any list, any source).
CREATE TABLE marketing_unsubscribes (
  email      text PRIMARY KEY CHECK (email = lower(email)),
  source     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Extra headers of an outgoing message (List-Unsubscribe, List-Unsubscribe-Post).
ALTER TABLE email_outbox ADD COLUMN IF NOT EXISTS headers jsonb;  -- 0091 (e-mail workspace) adds it first on a fresh database
