-- Wallet identity (issue 28, server/domains/identity): who each address the chain meets is, and why.

-- The resolved identity of every address met: what the figures, the wallet page and alerts read. `class` comes from
-- `class_source` (an operator, a label file, seed data, a behaviour rule); `reasons` say why, strongest first.
-- `kind` from eth_getCode ('unknown' where the source has no contract state); `delegate`: EIP-7702 delegation.
CREATE TABLE wallet_identity (
  address      text PRIMARY KEY,
  kind         text NOT NULL DEFAULT 'unknown' CHECK (kind IN ('eoa', 'contract', 'unknown')),
  delegate     text,
  class        text NOT NULL CHECK (class IN ('whale', 'trader', 'mev_bot', 'router', 'exchange', 'pool', 'bridge', 'fund', 'market_maker', 'unknown')),
  class_source text CHECK (class_source IN ('seed', 'label_file', 'rule', 'operator')),
  exchange     text,
  label        text,
  label_source text CHECK (label_source IN ('seed', 'label_file', 'rule', 'operator')),
  confidence   double precision NOT NULL,
  reasons      jsonb NOT NULL DEFAULT '[]',
  first_block  bigint,
  last_block   bigint,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wallet_identity_class ON wallet_identity (class);

-- Behaviour-rule evidence per address, class and rule: how often, the last five transactions, the pool and the
-- counterpart last seen, the confidence reached, first and last block.
CREATE TABLE wallet_identity_evidence (
  address     text NOT NULL,
  class       text NOT NULL,
  rule        text NOT NULL CHECK (rule IN ('sandwich', 'arbitrage', 'pass_through', 'exchange_sweep', 'swap_event', 'dex_swap', 'settlement_solver')),
  confidence  double precision NOT NULL,
  hits        integer NOT NULL,
  txs         text[] NOT NULL,
  pool        text,
  counterpart text,
  exchange    text,
  first_block bigint NOT NULL,
  last_block  bigint NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (address, class, rule)
);

-- Every change of an address's class (the identity's history).
CREATE TABLE wallet_identity_history (
  id             bigserial PRIMARY KEY,
  address        text NOT NULL,
  class          text NOT NULL,
  previous_class text,
  source         text,
  confidence     double precision NOT NULL,
  reason         text,
  block          bigint,
  changed_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wallet_identity_history_address ON wallet_identity_history (address, id);

-- Operators' corrections, append-only and replayed in order: `set` a class (with an exchange name) or a label;
-- `unset` a class (value: the class ruled out; null: drop the operator's own class) or the label (hides file and
-- seed labels). They win over rules and files, which never undo them.
CREATE TABLE wallet_identity_corrections (
  id         bigserial PRIMARY KEY,
  address    text NOT NULL,
  action     text NOT NULL CHECK (action IN ('set', 'unset')),
  field      text NOT NULL CHECK (field IN ('class', 'label')),
  value      text,
  exchange   text,
  reason     text NOT NULL CHECK (length(btrim(reason)) > 0),
  operator   text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wallet_identity_corrections_address ON wallet_identity_corrections (address, id);
