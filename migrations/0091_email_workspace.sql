-- The staff e-mail workspace (server/domains/email): outreach contacts, the messages of their threads (outgoing
-- through email_outbox, incoming through POST /webhooks/email-inbound), attachments, X-outreach targets, the
-- provider's delivery events, and addresses that must receive no marketing mail.

CREATE TABLE email_contacts (
  id           bigserial PRIMARY KEY,
  email        text NOT NULL UNIQUE CHECK (email = lower(email)),
  name         text NOT NULL DEFAULT '',
  company      text NOT NULL DEFAULT '',
  status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'replied', 'bounced', 'unsubscribed')),
  notes        text NOT NULL DEFAULT '',
  last_sent_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_contacts_status ON email_contacts (status, id);

CREATE TABLE email_messages (
  id              bigserial PRIMARY KEY,
  contact_id      bigint REFERENCES email_contacts (id) ON DELETE CASCADE,
  direction       text NOT NULL CHECK (direction IN ('in', 'out')),
  -- id of the first message of the thread (its own id for a thread's first message)
  thread_id       bigint,
  subject         text NOT NULL DEFAULT '',
  from_address    text NOT NULL,
  to_address      text NOT NULL,
  -- sanitized HTML (inbound) or the HTML we sent (outbound)
  body_html       text NOT NULL DEFAULT '',
  body_text       text NOT NULL DEFAULT '',
  snippet         text NOT NULL DEFAULT '',
  -- RFC 5322 Message-ID without angle brackets: the inbound one as received, ours as generated
  rfc_message_id  text,
  in_reply_to     text,
  -- the token of our reply address (`reply+<token>@…`), outbound only
  reply_token     text UNIQUE,
  read            boolean NOT NULL DEFAULT false,
  delivery_status text CHECK (delivery_status IN ('queued', 'delivered', 'opened', 'bounced', 'complained')),
  outbox_id       bigint REFERENCES email_outbox (id) ON DELETE SET NULL,
  -- a batch-send run: one message per contact and batch
  batch_id        text,
  size_bytes      integer NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_messages_contact ON email_messages (contact_id, id DESC);
CREATE INDEX email_messages_thread ON email_messages (thread_id, id);
CREATE INDEX email_messages_inbox ON email_messages (id DESC) WHERE direction = 'in';
-- the same inbound message (by Message-ID) is stored once
CREATE UNIQUE INDEX email_messages_inbound_mid ON email_messages (rfc_message_id) WHERE direction = 'in';
CREATE UNIQUE INDEX email_messages_outbound_mid ON email_messages (rfc_message_id) WHERE direction = 'out';
CREATE UNIQUE INDEX email_messages_batch ON email_messages (batch_id, contact_id) WHERE batch_id IS NOT NULL;

CREATE TABLE email_attachments (
  id           bigserial PRIMARY KEY,
  message_id   bigint NOT NULL REFERENCES email_messages (id) ON DELETE CASCADE,
  filename     text NOT NULL,
  content_type text NOT NULL,
  content_id   text,
  size_bytes   integer NOT NULL,
  sha256       text NOT NULL,
  content      bytea NOT NULL
);
CREATE INDEX email_attachments_message ON email_attachments (message_id);

CREATE TABLE email_x_outreach (
  id         bigserial PRIMARY KEY,
  -- an X handle without '@', stored lower-cased
  handle     text NOT NULL UNIQUE CHECK (handle = lower(handle)),
  note       text NOT NULL DEFAULT '',
  sent       boolean NOT NULL DEFAULT false,
  sent_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Delivery events of the e-mail provider (POST /webhooks/emailprovider), recorded by event id before acting.
CREATE TABLE email_delivery_events (
  event_id    text PRIMARY KEY,
  type        text NOT NULL,
  email       text,
  message_ref bigint REFERENCES email_messages (id) ON DELETE SET NULL,
  occurred_at timestamptz,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- Addresses that receive no marketing mail (a complaint, a hard bounce, an unsubscribe).
CREATE TABLE email_suppressions (
  email      text PRIMARY KEY CHECK (email = lower(email)),
  reason     text NOT NULL CHECK (reason IN ('complaint', 'bounce', 'unsubscribe')),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Extra headers of an outgoing message (Reply-To, Message-ID, List-Unsubscribe, List-Unsubscribe-Post).
ALTER TABLE email_outbox ADD COLUMN headers jsonb;
