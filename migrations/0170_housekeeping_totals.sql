-- Issue 28 parts 3 and 5: flows answers say how much exchange housekeeping they left out (`excluded`), over the same
-- window (server/domains/analytics/FlowsRepo.ts `housekeeping`). A partial index of the housekeeping records by time:
-- the read touches only those rows, and the ingest path writes to it only for them.
CREATE INDEX IF NOT EXISTS whale_tx_housekeeping_ts ON whale_tx (ts) WHERE category = 'exchange_housekeeping';
