-- Tokens whose metadata could not be read (source 'unknown': symbol() or decimals() reverted or answered oddly)
-- are read again with back-off by the block listener until they resolve or are confirmed non-standard
-- (server/domains/chain/TokenRereads.ts). next_read_at NULL on an unknown token: given up.
ALTER TABLE tokens ADD COLUMN read_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN next_read_at timestamptz;
UPDATE tokens SET next_read_at = now() WHERE source = 'unknown';
CREATE INDEX tokens_reread_due ON tokens (next_read_at) WHERE source = 'unknown' AND next_read_at IS NOT NULL;
