-- The fan-out records thousands of deliveries per block (2,400 records against 10,000 alerts: ~7,000 deliveries and
-- ~9,000 channel rows), and per-row foreign-key checks were a third of that statement's time. The two checks on the
-- hot path go; what they did on delete is done once per statement instead:
--  - a channel row is only ever written with the delivery the same statement returns, so it cannot point nowhere;
--    a deleted delivery's channels go with it (was: ON DELETE CASCADE);
--  - a delivery names the alert that matched when it was recorded; a deleted alert's deliveries keep their history
--    with alert_id NULL (was: ON DELETE SET NULL). A delivery recorded while its alert is being deleted is kept and
--    sent (it matched before the delete), where the check used to fail the whole round.
-- alert_deliveries.user_id keeps its key (a deleted user's deliveries go with the user).
ALTER TABLE alert_delivery_channels DROP CONSTRAINT alert_delivery_channels_delivery_id_fkey;
ALTER TABLE alert_deliveries DROP CONSTRAINT alert_deliveries_alert_id_fkey;

CREATE FUNCTION alert_deliveries_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM alert_delivery_channels c USING gone WHERE c.delivery_id = gone.id;
  RETURN NULL;
END $$;

CREATE TRIGGER alert_deliveries_deleted AFTER DELETE ON alert_deliveries
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION alert_deliveries_deleted();

CREATE FUNCTION alert_subscriptions_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE alert_deliveries d SET alert_id = NULL FROM gone WHERE d.alert_id = gone.id;
  RETURN NULL;
END $$;

CREATE TRIGGER alert_subscriptions_deleted AFTER DELETE ON alert_subscriptions
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION alert_subscriptions_deleted();

-- Deliveries whose alert was deleted before this migration already have alert_id NULL; nothing to backfill.
