/**
 * The identity engine's memory: per address its rule evidence, kind, first and last block, and resolved identity,
 * for the most recently met addresses (least recently met dropped beyond `capacity`; the database keeps them all and
 * the service hydrates an address again when a block meets it). Plus the tracked wallets, the operators'
 * corrections and the label files.
 *
 * `observe(activity)` is the per-block step, pure CPU: run the rules, fold their findings into the evidence (a
 * transaction already counted is not counted again), resolve every address the block met, and say what changed.
 * Contracts that logged are known as contracts without asking the node; other kinds come from `setKind`.
 */
import { participants } from "./Activity"
import type { LabelBook } from "./Labels"
import { resolveIdentity, RULE_CAP, STRONG, type TrackedWallet } from "./Resolve"
import { runRules, type BlockFindings } from "./Rules"
import type { BlockActivity, CorrectionState, Evidence, Finding, Identity, KindInfo } from "./Types"

export interface AddressState {
  evidence: Array<Evidence>
  kind: KindInfo | null
  firstBlock: number | null
  lastBlock: number | null
  identity: Identity | null
  /** The last block as stored (to refresh `last_seen` now and then, not at every block). */
  storedBlock: number | null
}

export interface Observed extends BlockFindings {
  readonly met: ReadonlyArray<string>
  /** Evidence rows new or changed by this block. */
  readonly evidence: ReadonlyArray<{ readonly address: string; readonly evidence: Evidence }>
  /** Identities to store: new, changed, or last stored long ago. */
  readonly identities: ReadonlyArray<{ readonly state: AddressState; readonly identity: Identity; readonly previous: Identity | null }>
}

/** An identity's `last_seen` is stored again once it is this many blocks old (about an hour). */
const RESTORE_AFTER_BLOCKS = 300
const CONTRACT: KindInfo = { kind: "contract", delegate: null }

const same = (a: Identity | null, b: Identity) =>
  a !== null && a.class === b.class && a.label === b.label && a.labelSource === b.labelSource && a.confidence === b.confidence &&
  a.kind === b.kind && a.delegate === b.delegate && a.exchange === b.exchange

const fold = (list: Array<Evidence>, f: Finding): Evidence | null => {
  const i = list.findIndex((e) => e.class === f.class && e.rule === f.rule)
  const txs = [f.txHash, ...(f.relatedTxs ?? [])]
  if (i < 0) {
    const e: Evidence = {
      class: f.class, rule: f.rule, confidence: f.confidence, hits: 1, txs, pool: f.pool ?? null,
      counterpart: f.counterpart ?? null, exchange: f.exchange ?? null, firstBlock: f.block, lastBlock: f.block
    }
    list.push(e)
    return e
  }
  const e = list[i]!
  if (e.txs.includes(f.txHash)) return null
  const next: Evidence = {
    ...e, confidence: Math.min(RULE_CAP[f.rule], Math.round((Math.max(e.confidence, f.confidence) + 0.05) * 100) / 100),
    hits: e.hits + 1, txs: [...txs, ...e.txs].slice(0, 5), pool: f.pool ?? e.pool, counterpart: f.counterpart ?? e.counterpart,
    exchange: f.exchange ?? e.exchange, firstBlock: Math.min(e.firstBlock, f.block), lastBlock: Math.max(e.lastBlock, f.block)
  }
  list[i] = next
  return next
}

export class IdentityBook {
  readonly #states = new Map<string, AddressState>()
  #tracked: ReadonlyMap<string, TrackedWallet> = new Map()
  #corrections: ReadonlyMap<string, CorrectionState> = new Map()

  constructor(readonly labels: LabelBook, readonly capacity = 200_000) {}

  /** The state of an address in memory (touching it), or undefined. */
  state(address: string): AddressState | undefined {
    const s = this.#states.get(address)
    if (s !== undefined) {
      this.#states.delete(address)
      this.#states.set(address, s)
    }
    return s
  }

  /** Puts an address's state in memory (from the database, or empty), dropping the least recently met beyond capacity. */
  put(address: string, state: AddressState): AddressState {
    this.#states.delete(address)
    this.#states.set(address, state)
    while (this.#states.size > this.capacity) this.#states.delete(this.#states.keys().next().value!)
    return state
  }

  /** Of `addresses`, those not in memory. */
  missing(addresses: Iterable<string>): Array<string> {
    return [...addresses].filter((a) => !this.#states.has(a))
  }

  setKind(address: string, kind: KindInfo) {
    const s = this.state(address)
    if (s !== undefined) s.kind = kind
  }

  setTracked(tracked: ReadonlyMap<string, TrackedWallet>) {
    this.#tracked = tracked
  }
  tracked(address: string) {
    return this.#tracked.get(address)
  }
  setCorrections(corrections: ReadonlyMap<string, CorrectionState>) {
    this.#corrections = corrections
  }
  correction(address: string) {
    return this.#corrections.get(address)
  }

  /** A labelled router, or one the rules have made sure of. */
  readonly isRouter = (address: string): boolean =>
    this.labels.fact(address)?.class === "router" ||
    (this.#states.get(address)?.identity?.class === "router" && this.#states.get(address)!.identity!.confidence >= STRONG)

  /** The exchange of a labelled exchange wallet (unless an operator ruled it out). */
  readonly exchangeOf = (address: string): string | undefined => {
    const label = this.labels.fact(address)
    if (label?.class !== "exchange" || this.#corrections.get(address)?.vetoed.includes("exchange") === true) return undefined
    return label.exchange ?? label.name
  }

  /** The identity of an address from what is in memory (an empty state when it is not). */
  resolve(address: string, state: AddressState = this.state(address) ?? emptyState()): Identity {
    return resolveIdentity({
      address, kind: state.kind ?? undefined, label: this.labels.get(address), tracked: this.#tracked.get(address),
      evidence: state.evidence, correction: this.#corrections.get(address)
    })
  }

  /** The per-block step (see the header). Addresses not in memory start empty: hydrate them first. */
  observe(activity: BlockActivity): Observed {
    const met = participants(activity)
    const states = new Map<string, AddressState>()
    for (const a of met) states.set(a, this.state(a) ?? this.put(a, emptyState()))
    for (const tx of activity.txs) {
      for (const emitter of tx.emitters) {
        const s = states.get(emitter)
        if (s !== undefined && s.kind === null) s.kind = CONTRACT
      }
    }
    const found = runRules(activity, this)
    // One row per address, class and rule, however many of the block's transactions added to it.
    const evidence = new Map<string, { address: string; evidence: Evidence }>()
    for (const f of found.findings) {
      const s = states.get(f.address) ?? this.state(f.address) ?? this.put(f.address, emptyState())
      const changed = fold(s.evidence, f)
      if (changed !== null) evidence.set(`${f.address}:${f.class}:${f.rule}`, { address: f.address, evidence: changed })
    }
    const identities: Array<{ state: AddressState; identity: Identity; previous: Identity | null }> = []
    for (const [address, s] of states) {
      s.firstBlock ??= activity.number
      s.lastBlock = Math.max(s.lastBlock ?? activity.number, activity.number)
      const previous = s.identity
      const identity = this.resolve(address, s)
      s.identity = identity
      if (!same(previous, identity) || s.storedBlock === null || s.lastBlock - s.storedBlock >= RESTORE_AFTER_BLOCKS) {
        identities.push({ state: s, identity, previous })
      }
    }
    return { ...found, met: [...met], evidence: [...evidence.values()], identities }
  }
}

export const emptyState = (): AddressState => ({ evidence: [], kind: null, firstBlock: null, lastBlock: null, identity: null, storedBlock: null })
