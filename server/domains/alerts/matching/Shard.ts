/**
 * Shards of the subscription index (ALERT_SHARDS): a user's alerts all live in shard `user_id mod N`, so a shard's
 * fan-out holds every alert of its users (cooldowns, budgets and digests stay per user) and each delivery is made by
 * exactly one shard. With N = 1 there is one shard holding everyone (today's single fan-out).
 *
 * Pure: no Effect, no I/O.
 */

/** One shard of N: `index` in 0..count-1. */
export interface Shard {
  readonly index: number
  readonly count: number
}

/** The whole index as one shard. */
export const ALL_USERS: Shard = { index: 0, count: 1 }

/** The shard of a user's alerts. */
export const shardOf = (userId: number, count: number): number => {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`shard count must be a positive integer, got ${count}`)
  return ((userId % count) + count) % count
}

/** Whether a user's alerts belong to this shard. */
export const ownsUser = (shard: Shard, userId: number): boolean => shard.count === 1 || shardOf(userId, shard.count) === shard.index

/** Every shard of N. */
export const shardsOf = (count: number): ReadonlyArray<Shard> => Array.from({ length: count }, (_, index) => ({ index, count }))

