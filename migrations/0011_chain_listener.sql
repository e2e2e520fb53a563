-- The block listener's bookkeeping beside 0010 (server/domains/chain/Repo.ts).
--  eth_usd, eth_usd_block: the ETH/USD price known at the end of the block (and the block it was observed in), so
--    that a restart, or a rollback to this block after a reorg, prices WETH legs as an uninterrupted run would.
--  published_at: when the block's records were published on `chain.tx` (NULL: stored, not yet published; a
--    listener that starts publishes them again — consumers are idempotent on `messageId`).
ALTER TABLE chain_blocks
  ADD COLUMN eth_usd double precision,
  ADD COLUMN eth_usd_block bigint,
  ADD COLUMN published_at timestamptz;
CREATE INDEX chain_blocks_unpublished ON chain_blocks (number) WHERE published_at IS NULL;
