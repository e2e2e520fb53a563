-- Convergence alerts (issue 12): the sliding window of whale buys and each alert's last fire per token, shared by
-- every fan-out process and kept across restarts (the fan-out used to hold both in memory, per process).

-- Buys of tokens that a convergence alert watches, kept a day (the longest window); a reorg deletes its record's.
CREATE TABLE alert_convergence_buys (
  token       text NOT NULL,
  record_key  text NOT NULL,
  wallet      text NOT NULL,
  label       text,
  usd         double precision NOT NULL,
  at          timestamptz NOT NULL,
  PRIMARY KEY (token, record_key)
);
CREATE INDEX alert_convergence_buys_at ON alert_convergence_buys (token, at);

-- One row per (alert, token): when it last fired and on which record. A fire is taken by a conditional upsert, so
-- two processes cannot both fire an alert for one token within its window; the record that fired may take it again
-- (a redelivered record: its delivery's unique key then records nothing twice).
CREATE TABLE alert_convergence_fired (
  alert_id    bigint NOT NULL REFERENCES alert_subscriptions (id) ON DELETE CASCADE,
  token       text NOT NULL,
  fired_at    timestamptz NOT NULL,
  -- fired_at + the alert's window: no other record fires it for this token before
  quiet_until timestamptz NOT NULL,
  record_key  text NOT NULL,
  PRIMARY KEY (alert_id, token)
);
