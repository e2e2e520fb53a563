-- Every outgoing e-mail, written in the transaction of what caused it and sent after commit by the mail-outbox
-- actor. `logged` = no SMTP configured (embedded default): the message went to the log only.
CREATE TABLE email_outbox (
  id              bigserial PRIMARY KEY,
  kind            text NOT NULL,
  user_id         bigint REFERENCES users (id) ON DELETE SET NULL,
  to_address      text NOT NULL,
  subject         text NOT NULL,
  text_body       text,
  html_body       text,
  -- bodies carrying one-time links are cleared once sent
  sensitive       boolean NOT NULL DEFAULT false,
  status          text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'logged')),
  attempts        integer NOT NULL DEFAULT 0,
  last_error      text,
  -- when a `queued` row is due; for a claimed (`sending`) row, when its lease ends and it may be claimed again
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  message_id      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  sent_at         timestamptz
);
CREATE INDEX email_outbox_due ON email_outbox (next_attempt_at) WHERE status IN ('queued', 'sending');
CREATE INDEX email_outbox_user ON email_outbox (user_id);
