/**
 * The identity engine's vocabulary: what a block shows (token movements and swaps per transaction), what a
 * behaviour rule finds (a `Finding`), what is kept per address and rule (`Evidence`), what an operator said
 * (`Correction`) and the resolved `Identity` the rest of the product reads.
 *
 * Addresses are lower-case hex. Native ETH is counted as WETH, as in the chain domain's decoding.
 */
import type { IdentitySource, WalletClass, WalletKind } from "../../../schema/identity"

export type { IdentitySource, WalletClass, WalletKind }

/**
 * One movement of a token inside a transaction: an ERC-20 Transfer, a WETH Deposit (`from` null: ETH became WETH),
 * a WETH Withdrawal (`to` null: WETH became ETH), or the transaction's own ETH value (`logIndex` -1).
 */
export interface TokenMove {
  readonly token: string
  readonly from: string | null
  readonly to: string | null
  readonly amount: bigint
  readonly logIndex: number
}

export type SwapProtocol = "uniswap_v2" | "uniswap_v3" | "curve" | "balancer_v2"

/** A swap in a pool, as its event and the transfers around it show it. */
export interface Swap {
  readonly txHash: string
  readonly txIndex: number
  /** The transaction's sender and the contract it called. */
  readonly txFrom: string
  readonly txTo: string | null
  readonly logIndex: number
  /** The pool (Balancer: the pool of the vault's poolId). */
  readonly pool: string
  readonly protocol: SwapProtocol
  readonly tokenIn: string
  readonly tokenOut: string
  readonly amountIn: bigint
  readonly amountOut: bigint
  /** Who paid the token in (the transfer's sender; the event's sender when no transfer says). */
  readonly payer: string
  /** Who received the token out. */
  readonly recipient: string
}

export interface TxActivity {
  readonly hash: string
  readonly index: number
  readonly from: string
  readonly to: string | null
  readonly value: bigint
  readonly moves: ReadonlyArray<TokenMove>
  readonly swaps: ReadonlyArray<Swap>
  /** Owners of orders settled in the transaction (CoW Protocol `Trade` events): traders whose tx.from is a solver. */
  readonly orderOwners: ReadonlyArray<string>
}

export interface BlockActivity {
  readonly number: number
  readonly hash: string
  readonly timestamp: number
  readonly txs: ReadonlyArray<TxActivity>
  /** Contracts that emitted a log in the block (pools, tokens, routers that log). */
  readonly emitters: ReadonlySet<string>
}

export type RuleName =
  | "sandwich" | "arbitrage" | "pass_through" | "exchange_sweep" | "swap_event" | "dex_swap" | "settlement_solver"

/** What a behaviour rule concluded about one address from one transaction. */
export interface Finding {
  readonly address: string
  readonly class: WalletClass
  readonly rule: RuleName
  readonly confidence: number
  readonly txHash: string
  /** Other transactions of the same finding (a sandwich's back-run). */
  readonly relatedTxs?: ReadonlyArray<string>
  readonly block: number
  readonly pool?: string | null
  readonly counterpart?: string | null
  /** The exchange a deposit address sweeps into. */
  readonly exchange?: string | null
}

/** The rule evidence kept per address, class and rule: how often, where last, and up to five transactions. */
export interface Evidence {
  readonly class: WalletClass
  readonly rule: RuleName
  readonly confidence: number
  readonly hits: number
  readonly txs: ReadonlyArray<string>
  readonly pool: string | null
  readonly counterpart: string | null
  readonly exchange: string | null
  readonly firstBlock: number
  readonly lastBlock: number
}

/** A label from a label file. `doubt`: the source was not sure ("?" in the name) — never shown as fact. */
export interface IdentityLabel {
  readonly name: string
  readonly class: WalletClass
  readonly exchange: string | null
  readonly file: string
  readonly doubt: boolean
}

/** What an operator's corrections amount to for one address (the log replayed in order). */
export interface CorrectionState {
  readonly class: WalletClass | null
  readonly exchange: string | null
  /** Classes the operator said the address is not: rules and files never give it these. */
  readonly vetoed: ReadonlyArray<WalletClass>
  /** An operator's label; `labelHidden`: file and seed labels are not shown. */
  readonly label: string | null
  readonly labelHidden: boolean
  readonly reasons: ReadonlyArray<string>
}

export interface Correction {
  readonly address: string
  readonly action: "set" | "unset"
  readonly field: "class" | "label"
  /** The class or label set, or the class vetoed (null: drop the operator's own class). */
  readonly value: string | null
  readonly exchange: string | null
  readonly reason: string
}

export interface KindInfo {
  readonly kind: WalletKind
  /** EIP-7702: the contract an EOA delegates to (code `0xef0100` ‖ address). */
  readonly delegate: string | null
}

export interface Identity {
  readonly address: string
  readonly kind: WalletKind
  readonly delegate: string | null
  readonly class: WalletClass
  readonly classSource: IdentitySource | null
  readonly exchange: string | null
  readonly label: string | null
  readonly labelSource: IdentitySource | null
  readonly confidence: number
  readonly reasons: ReadonlyArray<string>
}
