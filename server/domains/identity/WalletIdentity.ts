/**
 * The identity domain's service: who an address is and why (issue 28). What other domains call:
 *   - `classOf(address)` / `classesOf(addresses)`: the class the figures use (flows, the index, discovery);
 *   - `identityOf(address)`: class, label and their sources, reasons, confidence, kind, first and last block, the
 *     rule evidence, the class history and the operators' corrections (the wallet page, alerts);
 *   - `correct(correction)`: an operator's correction, logged with its reason; it wins over rules from then on;
 *   - `observe(block, logs, source)`: the per-block step, run by the chain listener through its block tap (Module.ts).
 *
 * The book (Book.ts) keeps the recently met addresses in memory; the database keeps all of them. The tracked wallets
 * and the corrections are reloaded when their tables change (checked once per block and before each answer).
 */
import { Effect } from "effect"
import { WalletClass } from "../../../schema/identity"
import { ChainWallets } from "../chain/ChainWallets"
import type { ChainSourceShape } from "../chain/Source"
import type { ChainBlock, RawLog } from "../chain/Types"
import { emptyState, IdentityBook } from "./Book"
import { observeBlock } from "./Engine"
import { InvalidCorrection } from "./Errors"
import { identityHistory } from "./History"
import { loadLabelBook } from "./Labels"
import { IdentityRepo, type StoredCorrection } from "./Repo"
import { replayCorrections } from "./Resolve"
import type { Correction, CorrectionState, Evidence, Identity } from "./Types"

export interface IdentityView extends Identity {
  readonly firstBlock: number | null
  readonly lastBlock: number | null
  readonly evidence: ReadonlyArray<Evidence>
  readonly corrections: ReadonlyArray<StoredCorrection>
}

const ADDRESS = /^0x[0-9a-f]{40}$/

/** The corrections per address, each address's log replayed. */
export const correctionStates = (log: ReadonlyArray<Correction>): Map<string, CorrectionState> => {
  const by = new Map<string, Array<Correction>>()
  for (const c of log) by.set(c.address, [...(by.get(c.address) ?? []), c])
  return new Map([...by].map(([a, l]) => [a, replayCorrections(l)]))
}

/** Checks a correction before it is recorded. */
export const validCorrection = (c: Correction): Effect.Effect<Correction, InvalidCorrection> => {
  const address = c.address.toLowerCase()
  const fail = (message: string) => Effect.fail(new InvalidCorrection({ message }))
  if (!ADDRESS.test(address)) return fail(`not an address: ${c.address}`)
  if (c.reason.trim() === "") return fail("a correction needs a reason")
  if (c.field === "class" && c.value !== null && !WalletClass.safeParse(c.value).success) {
    return fail(`unknown class ${c.value}; known: ${WalletClass.options.join(", ")}`)
  }
  if (c.field === "class" && c.action === "set" && c.value === null) return fail("set class needs a class")
  if (c.field === "label" && c.action === "set" && (c.value === null || c.value.trim() === "")) return fail("set label needs a label")
  if (c.exchange !== null && !(c.field === "class" && c.action === "set" && c.value === "exchange")) return fail("an exchange name goes with set class exchange")
  return Effect.succeed({ ...c, address, reason: c.reason.trim(), value: c.value?.trim() ?? null })
}

export class WalletIdentity extends Effect.Service<WalletIdentity>()("app/WalletIdentity", {
  dependencies: [IdentityRepo.Default, ChainWallets.Default],
  effect: Effect.gen(function* () {
    const repo = yield* IdentityRepo
    const wallets = yield* ChainWallets
    const book = new IdentityBook(loadLabelBook())
    let trackedSignature: string | null = null
    let correctionsSignature: number | null = null
    let log: ReadonlyArray<StoredCorrection> = []

    /** Reloads the tracked wallets and the corrections when their tables changed. */
    const refresh = Effect.gen(function* () {
      const tracked = yield* wallets.trackedSignature
      if (tracked !== trackedSignature) {
        book.setTracked(new Map((yield* wallets.tracked).map((w) => [w.address, { label: w.label, source: w.source }])))
        trackedSignature = tracked
      }
      const corrections = yield* repo.correctionsSignature
      if (corrections !== correctionsSignature) {
        log = yield* repo.corrections
        book.setCorrections(correctionStates(log))
        correctionsSignature = corrections
      }
    })

    const stateOf = (address: string) =>
      Effect.gen(function* () {
        const known = book.state(address)
        if (known !== undefined) return known
        return (yield* repo.load([address])).get(address) ?? emptyState()
      })

    const identityOf = Effect.fn("WalletIdentity.identityOf")(function* (address: string) {
      const a = address.toLowerCase()
      yield* refresh
      const state = yield* stateOf(a)
      return {
        ...book.resolve(a, state), firstBlock: state.firstBlock, lastBlock: state.lastBlock, evidence: state.evidence,
        corrections: log.filter((c) => c.address === a)
      } satisfies IdentityView
    })

    /** Resolves an address again after a correction and stores the result (with a history row when its class moved). */
    const restore = (address: string) =>
      Effect.gen(function* () {
        const state = yield* stateOf(address)
        const previous = state.identity
        const identity = book.resolve(address, state)
        state.identity = identity
        yield* repo.store({
          evidence: [], identities: [{ identity, firstBlock: state.firstBlock, lastBlock: state.lastBlock }],
          history: previous?.class === identity.class ? [] : [{
            address, class: identity.class, previous_class: previous?.class ?? null, source: identity.classSource,
            confidence: identity.confidence, reason: identity.reasons[0] ?? null, block: state.lastBlock
          }]
        })
        return identity
      })

    return {
      identityOf,
      classOf: (address: string) => Effect.map(identityOf(address), (i) => i.class),

      /** Classes of many addresses at once: memory, else the stored identity, else labels, seed and corrections alone. */
      classesOf: Effect.fn("WalletIdentity.classesOf")(function* (addresses: ReadonlyArray<string>) {
        yield* refresh
        const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))]
        const out = new Map<string, WalletClass>()
        const cold = wanted.filter((a) => {
          const identity = book.state(a)?.identity
          if (identity != null) out.set(a, identity.class)
          return identity == null
        })
        for (const row of yield* repo.identities(cold)) out.set(row.address, row.class)
        for (const a of cold) if (!out.has(a)) out.set(a, book.resolve(a, emptyState()).class)
        return out
      }),

      correct: Effect.fn("WalletIdentity.correct")(function* (correction: Correction, operator: string | null = null) {
        const valid = yield* validCorrection(correction)
        yield* repo.addCorrection(valid, operator)
        yield* refresh
        return yield* restore(valid.address)
      }),

      history: (address: string) => repo.history(address.toLowerCase()),

      /** The class changes and the operators' corrections of an address, merged, newest first (History.ts). */
      timeline: Effect.fn("WalletIdentity.timeline")(function* (address: string, limit = 50) {
        const a = address.toLowerCase()
        yield* refresh
        return identityHistory(yield* repo.history(a), log.filter((c) => c.address === a), limit)
      }),

      /** The operators' corrections, newest first (of one address when given). */
      corrections: Effect.fn("WalletIdentity.corrections")(function* (address: string | null = null, limit = 100) {
        yield* refresh
        const a = address?.toLowerCase() ?? null
        return log.filter((c) => a === null || c.address === a).slice(-limit).reverse()
      }),

      /** Stored exchange wallets → exchange name: what decoding needs beyond the label file (issue 28 part 3). */
      exchangeWallets: Effect.map(repo.exchangeWallets, (rows) => rows.map((r) => [r.address, r.exchange] as const)),

      observe: Effect.fn("WalletIdentity.observe")(function* (block: ChainBlock, logs: ReadonlyArray<RawLog>, source: Pick<ChainSourceShape, "getCodes">) {
        yield* refresh
        return yield* observeBlock({ book, load: repo.load, store: repo.store, ...(source.getCodes ? { getCodes: source.getCodes } : {}) }, block, logs)
      })
    } as const
  })
}) {}
