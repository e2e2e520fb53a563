-- A user's label for a wallet they monitor is theirs (alert_custom_wallets.label): the shared tracked_wallets row
-- of a custom wallet carries its short address instead, so wallet search, MCP and the feed never show it.
UPDATE tracked_wallets SET label = substr(address, 1, 6) || '…' || substr(address, 39, 4) WHERE source = 'custom';
