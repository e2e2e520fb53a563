-- The event playbook (server/domains/playbook): scheduled, live and completed events and their whale-flow metrics.
--
--   playbook_events       one row per event; `calendar_key` identifies rows that came from data/playbook-calendar.json
--                         or `npm run playbook -- import` (upserted by that key); admin-created rows have none.
--                         At most one row is LIVE (partial unique index): two concurrent moves to LIVE cannot both win.
--                         `final_metrics` is written when the event completes (or is recomputed), never otherwise.
--   playbook_transitions  the audit trail of every status change (who, when, from, to).
--   playbook_metrics      cached metrics of events whose window has ended but which were never completed by an
--                         admin (a past SCHEDULED event still shows its reaction); refreshed after a TTL.

CREATE TABLE playbook_events (
  id              bigserial PRIMARY KEY,
  calendar_key    text UNIQUE,
  title           text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
  category        text NOT NULL CHECK (category IN ('fomc', 'cpi', 'jobs', 'etf', 'unlock', 'upgrade', 'listing', 'exploit', 'other')),
  status          text NOT NULL DEFAULT 'SCHEDULED' CHECK (status IN ('SCHEDULED', 'LIVE', 'COMPLETED')),
  ts              timestamptz NOT NULL,
  severity        smallint NOT NULL CHECK (severity BETWEEN 1 AND 5),
  tokens          text[] NOT NULL DEFAULT '{}',
  description     text NOT NULL DEFAULT '',
  source_url      text,
  origin          text NOT NULL DEFAULT 'admin' CHECK (origin IN ('calendar', 'import', 'admin')),
  -- Set when an admin edits a row: the calendar upsert at start then leaves its fields alone.
  edited_at       timestamptz,
  final_metrics   jsonb,
  metrics_at      timestamptz,
  live_at         timestamptz,
  completed_at    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX playbook_events_one_live ON playbook_events ((true)) WHERE status = 'LIVE';
CREATE INDEX playbook_events_ts ON playbook_events (ts DESC, id DESC);
CREATE INDEX playbook_events_category_ts ON playbook_events (category, ts DESC);

CREATE TABLE playbook_transitions (
  id          bigserial PRIMARY KEY,
  event_id    bigint NOT NULL REFERENCES playbook_events (id) ON DELETE CASCADE,
  from_status text NOT NULL,
  to_status   text NOT NULL,
  actor       text NOT NULL,
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX playbook_transitions_event ON playbook_transitions (event_id, at);

CREATE TABLE playbook_metrics (
  event_id     bigint PRIMARY KEY REFERENCES playbook_events (id) ON DELETE CASCADE,
  -- The event timestamp the figures were computed for (an edit of the timestamp invalidates them).
  event_ts     timestamptz NOT NULL,
  metrics      jsonb NOT NULL,
  computed_at  timestamptz NOT NULL DEFAULT now()
);
