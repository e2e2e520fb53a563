-- The retrier's claim (`DeliveriesRepo.claimDue`) takes channels `retrying` whose time has come and `sending` ones
-- whose lease ran out (their sender died). The index of migration 0050 held only the `retrying` ones, so every poll
-- (each ALERT_RETRY_POLL_MS) read the whole table for the `sending` ones: ~11 ms a poll with one worst-case block
-- stored, growing with every delivery ever made. Both states are indexed now; sent rows (nearly all) are not.
DROP INDEX IF EXISTS alert_delivery_channels_due;
CREATE INDEX alert_delivery_channels_due ON alert_delivery_channels (next_attempt_at) WHERE status IN ('retrying', 'sending');
