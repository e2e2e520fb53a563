/**
 * Messages of the notifier actor, on the `notify` stream: deliveries recorded by the fan-out (`DeliverMany`, many
 * users at once) or a test send (`Deliver`, one user) — the shared contract of schema/streams.ts, which the alerts
 * domain publishes. The notifier claims each delivery's pending channels in the database before sending, so handling
 * a message twice (a redelivery after a crash) sends nothing twice.
 */
export { Deliver, DeliverMany, NotifyMessage as NotifierMessage } from "../../schema/streams"
