-- How a record's native-ETH amount was derived (issue 11): 'value' (the transaction's value), 'trace' (internal
-- transfers from call traces), 'withdrawal' (a known router's WETH Withdrawal), 'inferred' (another contract's
-- Withdrawal taken as the sender's proceeds); NULL when no native ETH moved (or for records stored before).
ALTER TABLE whale_tx ADD COLUMN eth_via text CHECK (eth_via IN ('value', 'trace', 'withdrawal', 'inferred'));
