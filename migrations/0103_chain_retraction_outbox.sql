-- Retractions written in the same transaction as the rollback that makes them necessary, published after commit and
-- then deleted: a crash between the commit and the publish leaves them here, and the next life publishes them
-- (consumers are idempotent on messageId, so one published twice changes nothing).
CREATE TABLE chain_retraction_outbox (
  message_id text PRIMARY KEY,
  payload    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
