/**
 * Wallet identity on the wire (issue 28): who an address is and why. Shared by the `wallets classify` command, the
 * identity service's answers and, later, the wallet page and the keyed wallet endpoint.
 *
 * `class` is what the figures use; `reasons` say why, one short sentence each, strongest first; `label` is only ever
 * a label held as fact (a doubtful label — "?" in its name — is never shown here, only named in a reason).
 */
import { z } from "zod"

export const WalletClass = z.enum([
  "whale", "trader", "mev_bot", "router", "exchange", "pool", "bridge", "fund", "market_maker", "unknown"
])
export type WalletClass = z.infer<typeof WalletClass>

/** Classes that are never a person's own trading: never counted as whales, whatever their size. */
export const NON_HUMAN_CLASSES: ReadonlySet<WalletClass> = new Set(["mev_bot", "router", "exchange", "pool", "bridge"])

/**
 * The classes every figure leaves out (issue 28 part 5): the index, top tokens, flows, positioning, picks and the
 * playbook count whales only. The SQL function `whale_counted` (migration 0120) holds the same list.
 */
export const FIGURE_EXCLUDED_CLASSES: ReadonlyArray<WalletClass> = ["mev_bot", "router", "pool", "exchange", "bridge"]

export const WalletKind = z.enum(["eoa", "contract", "unknown"])
export type WalletKind = z.infer<typeof WalletKind>

/** Where a class or a label comes from: seed data, a label file, a behaviour rule, an operator's correction. */
export const IdentitySource = z.enum(["seed", "label_file", "rule", "operator"])
export type IdentitySource = z.infer<typeof IdentitySource>

/** One line of `npm run -s wallets -- classify --json`. */
export const IdentityLine = z.object({
  address: z.string().regex(/^0x[0-9a-f]{40}$/),
  kind: WalletKind,
  class: WalletClass,
  reasons: z.array(z.string()),
  label: z.string().nullable(),
  label_source: IdentitySource.nullable(),
  confidence: z.number().min(0).max(1)
})
export type IdentityLine = z.infer<typeof IdentityLine>
