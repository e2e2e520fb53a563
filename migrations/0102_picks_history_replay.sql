-- The picks of the demo history: the generated history is stored, never published on chain.tx, so the picks-grader
-- replays it (the rebuild path) once it is stored, and records here that it did (one row: done, never again).
CREATE TABLE picks_history_replay (
  id          smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  replayed_at timestamptz NOT NULL DEFAULT now(),
  records     bigint NOT NULL,
  flagged     integer NOT NULL,
  graded      integer NOT NULL
);
