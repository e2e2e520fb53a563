/**
 * The identity engine's memory: per address its rule evidence, kind, first and last block, and resolved identity,
 * for the most recently met addresses (least recently met dropped beyond `capacity`; the database keeps them all and
 * the service hydrates an address again when a block meets it). Plus the tracked wallets, the operators'
 * corrections and the label files.
 *
 * `observe(activity)` is the per-block step, pure CPU: run the rules, fold their findings into the evidence (a
 * transaction already counted is not counted again), resolve again the addresses whose evidence, kind, tracking or
 * corrections changed (and the new ones), and say what to store. What is stored per block stays small on busy
 * blocks: evidence when it is new, changes class or confidence, or comes from a rare rule (sandwich, arbitrage,
 * sweep, solver); an identity when it is new or changed. Repeats of the frequent rules (a pool's swaps, a trader's,
 * a router's pass-through at its cap) and `last_seen` are written with the address's next store, at the latest
 * RESTORE_AFTER_BLOCKS later. Contracts that logged are known as contracts without asking the node; other kinds come
 * from `setKind`.
 */
import { participants } from "./Activity"
import type { LabelBook } from "./Labels"
import { resolveIdentity, RULE_CAP, STRONG, type TrackedWallet } from "./Resolve"
import { runRules, type BlockFindings } from "./Rules"
import type { BlockActivity, CorrectionState, Evidence, Finding, Identity, KindInfo } from "./Types"

export interface AddressState {
  evidence: Array<Evidence>
  /** Evidence (by rule: each rule gives one class) changed in memory and not stored yet. */
  dirty: Set<Evidence["rule"]>
  /** The book's version (tracked wallets, corrections) the identity was resolved with. */
  version: number
  /** The last block whose findings changed its evidence materially (then it is resolved again). */
  changedIn: number
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

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** Rules rare enough that every finding is stored at once. */
const RARE = new Set<Evidence["rule"]>(["sandwich", "arbitrage", "exchange_sweep", "settlement_solver"])

/** The evidence of `list` the finding adds to (each rule gives one class, so evidence is found by its rule). */
const evidenceFor = (list: ReadonlyArray<Evidence>, f: Finding): Mutable<Evidence> | undefined => {
  let e: Mutable<Evidence> | undefined
  for (const x of list) if (x.rule === f.rule && x.class === f.class) e = x
  return e
}

const evidenceOf = (f: Finding): Evidence => ({
  class: f.class, rule: f.rule, confidence: f.confidence, hits: 1,
  txs: f.relatedTxs === undefined ? [f.txHash] : [f.txHash, ...f.relatedTxs], pool: f.pool ?? null,
  counterpart: f.counterpart ?? null, exchange: f.exchange ?? null, firstBlock: f.block, lastBlock: f.block
})

/**
 * Folds a finding of a transaction not counted yet into its evidence, in place (a busy router takes hundreds of
 * findings a block): whether the change is material (another confidence, or a rare rule).
 */
const fold = (e: Mutable<Evidence>, f: Finding): boolean => {
  const confidence = Math.min(RULE_CAP[f.rule], Math.round((Math.max(e.confidence, f.confidence) + 0.05) * 100) / 100)
  const material = confidence !== e.confidence || RARE.has(f.rule)
  // The five latest transactions, newest first (in place: no array a finding).
  const txs = e.txs as Array<string>
  if (f.relatedTxs !== undefined) txs.unshift(...f.relatedTxs)
  txs.unshift(f.txHash)
  if (txs.length > 5) txs.length = 5
  e.confidence = confidence
  e.hits += 1
  if (f.pool != null) e.pool = f.pool
  if (f.counterpart != null) e.counterpart = f.counterpart
  if (f.exchange != null) e.exchange = f.exchange
  if (f.block < e.firstBlock) e.firstBlock = f.block
  if (f.block > e.lastBlock) e.lastBlock = f.block
  return material
}

export class IdentityBook {
  readonly #states = new Map<string, AddressState>()
  #tracked: ReadonlyMap<string, TrackedWallet> = new Map()
  #corrections: ReadonlyMap<string, CorrectionState> = new Map()
  /** Bumped when the tracked wallets or the corrections change: every identity is resolved again when next met. */
  #version = 0

  constructor(readonly labels: LabelBook, readonly capacity = 200_000) {}

  /** The state of an address in memory, or undefined. */
  state(address: string): AddressState | undefined {
    return this.#states.get(address)
  }

  /** Puts an address's state in memory (from the database, or empty), dropping the least recently met beyond capacity. */
  put(address: string, state: AddressState): AddressState {
    this.#states.set(address, state)
    if (this.#states.size > this.capacity) this.#evict()
    return state
  }

  /** Drops the tenth of the addresses met longest ago (so eviction runs once per capacity/10 new addresses). */
  #evict() {
    const ages = [...this.#states.values()].map((s) => s.lastBlock ?? -1).sort((a, b) => a - b)
    const cutoff = ages[Math.floor(ages.length / 10)]!
    for (const [address, s] of this.#states) if ((s.lastBlock ?? -1) <= cutoff && this.#states.size > this.capacity * 0.9) this.#states.delete(address)
  }

  /** Of `addresses`, those not in memory. */
  missing(addresses: Iterable<string>): Array<string> {
    const out: Array<string> = []
    for (const a of addresses) if (!this.#states.has(a)) out.push(a)
    return out
  }

  setKind(address: string, kind: KindInfo) {
    const s = this.#states.get(address)
    if (s !== undefined) s.kind = kind
  }

  setTracked(tracked: ReadonlyMap<string, TrackedWallet>) {
    this.#tracked = tracked
    this.#version++
  }
  tracked(address: string) {
    return this.#tracked.get(address)
  }
  setCorrections(corrections: ReadonlyMap<string, CorrectionState>) {
    this.#corrections = corrections
    this.#version++
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

  /** The identity of an address from what is in memory (an empty state when it is not); `explain`: with reasons. */
  resolve(address: string, state: AddressState = this.state(address) ?? emptyState(), explain = true): Identity {
    return resolveIdentity({
      address, kind: state.kind ?? undefined, label: this.labels.get(address), tracked: this.#tracked.get(address),
      evidence: state.evidence, correction: this.#corrections.get(address)
    }, explain)
  }

  /**
   * The per-block step (see the header). Addresses not in memory start empty: hydrate them first. `met` is the
   * block's participants when the caller has them already.
   */
  observe(activity: BlockActivity, met: ReadonlySet<string> = participants(activity)): Observed {
    const block = activity.number
    // Two lists side by side, not an [address, state] pair per address met.
    const addresses: Array<string> = []
    const states: Array<AddressState> = []
    for (const a of met) {
      const s = this.state(a) ?? this.put(a, emptyState())
      if (s.kind === null && activity.emitters.has(a)) s.kind = CONTRACT
      addresses.push(a)
      states.push(s)
    }
    const found = runRules(activity, this)
    // One row per address and rule, however many of the block's transactions added to it: keyed by the evidence
    // itself (an address has one per rule), not by a string built per finding.
    const evidence = new Map<Evidence, { address: string; evidence: Evidence }>()
    for (const f of found.findings) {
      const s = this.#states.get(f.address) ?? this.put(f.address, emptyState())
      let e = evidenceFor(s.evidence, f)
      let material = true
      if (e === undefined) s.evidence.push((e = evidenceOf(f)))
      else if (e.txs.includes(f.txHash)) continue
      else material = fold(e, f)
      if (material) {
        evidence.set(e, { address: f.address, evidence: e })
        s.changedIn = block
        s.dirty.delete(f.rule)
      } else s.dirty.add(f.rule)
    }
    const identities: Array<{ state: AddressState; identity: Identity; previous: Identity | null }> = []
    for (let i = 0; i < states.length; i++) {
      const address = addresses[i]!
      const s = states[i]!
      s.firstBlock ??= block
      s.lastBlock = Math.max(s.lastBlock ?? block, block)
      const previous = s.identity
      const due = s.storedBlock === null || s.lastBlock - s.storedBlock >= RESTORE_AFTER_BLOCKS
      const kindMoved = previous !== null && (previous.kind !== (s.kind?.kind ?? "unknown") || previous.delegate !== (s.kind?.delegate ?? null))
      if (previous !== null && !due && !kindMoved && s.version === this.#version && s.changedIn !== block) continue
      // Kept in memory without its reasons (what decides is kept; the reasons are written out, or asked for anew).
      const decided = this.resolve(address, s, false)
      s.identity = decided
      s.version = this.#version
      if (same(previous, decided) && !due) continue
      identities.push({ state: s, identity: this.resolve(address, s), previous })
      // The evidence kept in memory only goes with the identity.
      for (const rule of s.dirty) {
        const e = s.evidence.find((x) => x.rule === rule)
        if (e !== undefined) evidence.set(e, { address, evidence: e })
      }
      s.dirty.clear()
    }
    return { ...found, met: addresses, evidence: [...evidence.values()], identities }
  }
}

export const emptyState = (): AddressState => ({
  evidence: [], dirty: new Set(), version: -1, changedIn: -1, kind: null, firstBlock: null, lastBlock: null, identity: null, storedBlock: null
})
