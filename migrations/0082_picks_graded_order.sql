-- The streamed list of graded picks (GET /api/picks2/picks) reads them in batches by (flagged_at, id) after a
-- cursor: this index answers each batch without sorting or scanning PENDING and UNPRICED picks.
CREATE INDEX picks_graded_order ON picks (flagged_at, id) WHERE status = 'GRADED';
