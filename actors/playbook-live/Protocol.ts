/**
 * What the playbook-live actor reads and writes:
 *  - reads `chain.tx` (group `playbook-live`): records and their retractions, `ChainStreamMessage` of schema/streams;
 *  - writes `console.playbook` (relayed as the whale-tier topic `playbook:live`): `LiveSnapshot` of
 *    schema/http/playbook, each with `messageId` `live:<event id>:<n>`.
 */
export { ChainStreamMessage, isRetraction } from "../../schema/streams"
export { LiveSnapshot } from "../../schema/http/playbook"
export const LIVE_GROUP = "playbook-live"
