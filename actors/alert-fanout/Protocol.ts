/**
 * The alert-fanout actor's mailboxes: `chain.tx` (records and reorg retractions, the shared contract of
 * schema/streams.ts) and `domain.events` (picks flagged, playbook status changes, index values).
 */
export { ChainStreamMessage as FanoutRecordMessage, DomainEvent as FanoutEventMessage } from "../../schema/streams"
