-- Whales found on chain (issue 28 part 4, server/domains/identity/Discovery.ts): the queue of candidates — wallets
-- that moved or traded at least WHALE_MIN_USD in one transaction and are not a bot, router, pool, bridge or exchange —
-- with the move that made each one, its measured size (balances of the majors and stablecoins plus ETH, read over
-- eth_call/eth_getBalance at discovery and refreshed daily), and what became of it. A candidate that joins the
-- tracked set is a `tracked_wallets` row with source 'discovered'; one that goes idle leaves it (active = false) and
-- keeps this row and its history.
CREATE TABLE whale_candidates (
  address        text PRIMARY KEY,
  -- pending: waits for an operator (WHALE_DISCOVERY=review) or for room in the tracked set; joined: tracked;
  -- below: measured under WHALE_MIN_HOLDINGS_USD; rejected: an operator said no; left: idle for WHALE_IDLE_DAYS.
  status         text NOT NULL CHECK (status IN ('pending', 'joined', 'below', 'rejected', 'left')),
  -- The move that made it a candidate: "bought $2.4M PEPE in block N".
  move_verb      text NOT NULL,
  move_usd       double precision NOT NULL,
  move_symbol    text NOT NULL,
  move_block     bigint NOT NULL,
  move_tx        text NOT NULL,
  holdings_usd   double precision,
  holdings       jsonb NOT NULL DEFAULT '[]',
  cohort         text CHECK (cohort IN ('mega', 'large', 'mid')),
  reason         text NOT NULL,
  note           text,
  measured_at    timestamptz,
  last_active_at timestamptz NOT NULL,
  last_block     bigint NOT NULL,
  first_seen_at  timestamptz NOT NULL DEFAULT now(),
  decided_at     timestamptz,
  decided_by     text
);
CREATE INDEX whale_candidates_status ON whale_candidates (status, move_usd DESC);
