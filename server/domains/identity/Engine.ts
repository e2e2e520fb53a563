/**
 * One block through the identity engine, with its effects around the book's pure step (Book.ts):
 *  1. read the block's activity (Activity.ts) and the addresses it met;
 *  2. hydrate the addresses not in memory from the store (one query per table);
 *  3. ask the node for the code of addresses whose kind is unknown (`eth_getCode`, at most `maxCodeReads` a block,
 *     sent together: one JSON-RPC batch over HTTP; contracts that logged need no call; a failed read is asked again
 *     when the address is met next) — cached in the book and stored with the identity, so an address is asked once;
 *  4. run the rules and resolve (`book.observe`);
 *  5. store the changes (evidence, identities, class history) in one transaction.
 * Without `load`/`store` (a dry run) nothing is read from or written to the database.
 */
import { Effect } from "effect"
import type { RpcError } from "../chain/Source"
import type { ChainBlock, RawLog } from "../chain/Types"
import { participants, readActivity } from "./Activity"
import { emptyState, type AddressState, type IdentityBook, type Observed } from "./Book"
import type { BlockChanges, HistoryRow } from "./Repo"
import type { KindInfo } from "./Types"

export interface EngineDeps {
  readonly book: IdentityBook
  readonly load?: (addresses: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, AddressState>>
  readonly store?: (changes: BlockChanges) => Effect.Effect<void>
  readonly getCodes?: (addresses: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string | null>, RpcError>
  readonly maxCodeReads?: number
}

const DELEGATION = /^0xef0100([0-9a-f]{40})$/

/** An address's kind from its code: none is an EOA; `0xef0100` ‖ address is an EOA delegating under EIP-7702. */
export const kindOfCode = (code: string): KindInfo => {
  const c = code.toLowerCase()
  if (c === "0x" || c === "") return { kind: "eoa", delegate: null }
  const delegated = DELEGATION.exec(c)
  return delegated !== null ? { kind: "eoa", delegate: `0x${delegated[1]}` } : { kind: "contract", delegate: null }
}

/** The rows a block's observation stores. */
export const changesOf = (observed: Observed, block: number): BlockChanges => {
  const history: Array<HistoryRow> = []
  for (const { identity, previous } of observed.identities) {
    if (previous?.class === identity.class || (previous === null && identity.class === "unknown")) continue
    history.push({
      address: identity.address, class: identity.class, previous_class: previous?.class ?? null, source: identity.classSource,
      confidence: identity.confidence, reason: identity.reasons[0] ?? null, block
    })
  }
  return {
    evidence: observed.evidence,
    identities: observed.identities.map(({ identity, state }) => ({ identity, firstBlock: state.firstBlock, lastBlock: state.lastBlock })),
    history
  }
}

/**
 * Of the block's addresses, the first `most` whose kind is unknown and that did not log (those are contracts).
 * A module function, not a loop in the generator below: a generator's loops run unoptimized, and this one visits
 * every address of the block.
 */
const unknownKinds = (book: IdentityBook, met: ReadonlySet<string>, emitters: ReadonlySet<string>, most: number): Array<string> => {
  const unknown: Array<string> = []
  for (const a of met) {
    if (unknown.length >= most) break
    if (!emitters.has(a) && book.state(a)?.kind === null) unknown.push(a)
  }
  return unknown
}

/** Puts the addresses not in memory into the book: as stored, or empty. (A module function: see above.) */
const hydrate = (book: IdentityBook, missing: ReadonlyArray<string>, stored: ReadonlyMap<string, AddressState>) => {
  for (const a of missing) book.put(a, stored.get(a) ?? emptyState())
}

/** Handed over (or, in a dry run, nowhere to go): not due again for a while. */
const markStored = (observed: Observed) => {
  for (const { state } of observed.identities) state.storedBlock = state.lastBlock
}

export const observeBlock = (deps: EngineDeps, block: ChainBlock, logs: ReadonlyArray<RawLog>) =>
  Effect.gen(function* () {
    const { book } = deps
    const activity = readActivity(block, logs)
    const met = participants(activity)
    const missing = book.missing(met)
    if (missing.length > 0) {
      const stored = deps.load === undefined ? new Map<string, AddressState>() : yield* deps.load(missing)
      hydrate(book, missing, stored)
    }
    const getCodes = deps.getCodes
    if (getCodes !== undefined) {
      const unknown = unknownKinds(book, met, activity.emitters, deps.maxCodeReads ?? 200)
      if (unknown.length > 0) {
        const codes = yield* getCodes(unknown).pipe(Effect.orElseSucceed(() => [] as ReadonlyArray<string | null>))
        codes.forEach((code, i) => code !== null && book.setKind(unknown[i]!, kindOfCode(code)))
      }
    }
    const observed = book.observe(activity, met)
    const changes = changesOf(observed, block.number)
    if (deps.store !== undefined && (changes.evidence.length > 0 || changes.identities.length > 0)) yield* deps.store(changes)
    markStored(observed)
    return { activity, observed, changes }
  })
