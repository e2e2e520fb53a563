/**
 * Who an address is, from everything known about it — pure, so the listener, the command and the tests decide alike.
 *
 * The class, by precedence:
 *   1. an operator's correction (`set`): confidence 1;
 *   2. a label held as fact from a label file: 0.95;
 *   3. strong rule evidence (≥ 0.8) for a class that is never a person's own trading (mev_bot, router, pool,
 *      exchange, bridge): the strongest;
 *   4. a tracked wallet (seed data, an import, discovery): `whale`, 0.9 — custom wallets (a user's private
 *      monitoring) are not whales by being watched;
 *   5. the strongest remaining rule evidence; 6. `unknown`.
 * A class the operator vetoed (`unset … class X`) is never given by 2–5, so a correction is never undone by a rule.
 * A sweep into an exchange counts less (−0.3) for an address that also swapped on its own: deposit addresses do not
 * trade. No rule ever makes a whale: only seed data, discovery and operators do.
 *
 * The label: the operator's; else (unless the operator hid labels) a file's label held as fact, the tracked wallet's
 * label, or a deposit address's "<exchange> deposit address". A doubtful label is only named in the reasons.
 */
import { NON_HUMAN_CLASSES } from "../../../schema/identity"
import type { Correction, CorrectionState, Evidence, Identity, IdentityLabel, IdentitySource, KindInfo, WalletClass } from "./Types"

/** Strongest a rule's evidence may grow by repetition (+0.05 per new transaction). */
export const RULE_CAP: Readonly<Record<Evidence["rule"], number>> = {
  sandwich: 0.95, arbitrage: 0.95, swap_event: 0.95, pass_through: 0.9, exchange_sweep: 0.85, settlement_solver: 0.85, dex_swap: 0.7
}
export const STRONG = 0.8

export interface TrackedWallet { readonly label: string; readonly source: string }

export interface ResolveInput {
  readonly address: string
  readonly kind?: KindInfo | undefined
  readonly label?: IdentityLabel | undefined
  readonly tracked?: TrackedWallet | undefined
  readonly evidence: ReadonlyArray<Evidence>
  readonly correction?: CorrectionState | undefined
}

/** The first two transactions, "a, b" (without a copy and a join: a sentence is written for every identity stored). */
const txList = (e: Evidence) => (e.txs.length > 1 ? `${e.txs[0]}, ${e.txs[1]}` : e.txs.length === 1 ? e.txs[0]! : "")
const times = (n: number) => (n === 1 ? "once" : `${n} times`)

/** One sentence per piece of rule evidence. */
export const reasonOf = (e: Evidence): string => {
  switch (e.rule) {
    case "sandwich": return `sandwiched other accounts' swaps in pool ${e.pool ?? "?"} ${times(e.hits)} (tx ${txList(e)})`
    case "arbitrage": return `atomic arbitrage: swaps closing a profitable cycle ${times(e.hits)} (tx ${txList(e)})`
    case "pass_through": return `passed tokens through for another sender ${times(e.hits)}, keeping no more than a fee (tx ${txList(e)})`
    case "exchange_sweep": return `swept funds into ${e.exchange ?? "an exchange"} wallet ${e.counterpart ?? "?"} ${times(e.hits)} (tx ${txList(e)})`
    case "swap_event": return `a pool: emits swap events (tx ${txList(e)})`
    case "settlement_solver": return `sends the transactions of settlement contract ${e.counterpart ?? "?"} (tx ${txList(e)})`
    case "dex_swap": return `swapped on a DEX ${times(e.hits)} (tx ${txList(e)})`
  }
}

/** Replays an address's corrections in order. */
export const replayCorrections = (log: ReadonlyArray<Correction>): CorrectionState => {
  let klass: WalletClass | null = null
  let exchange: string | null = null
  let label: string | null = null
  let labelHidden = false
  const vetoed = new Set<WalletClass>()
  const reasons: Array<string> = []
  for (const c of log) {
    if (c.field === "class" && c.action === "set") {
      klass = c.value as WalletClass
      exchange = c.exchange
      vetoed.delete(klass)
      reasons.push(`operator set class ${klass}: ${c.reason}`)
    } else if (c.field === "class") {
      if (c.value === null || c.value === klass) [klass, exchange] = [null, null]
      if (c.value !== null) vetoed.add(c.value as WalletClass)
      reasons.push(c.value === null ? `operator dropped their class: ${c.reason}` : `operator: not ${c.value}: ${c.reason}`)
    } else if (c.action === "set") {
      label = c.value
      reasons.push(`operator set label "${c.value ?? ""}": ${c.reason}`)
    } else {
      label = null
      labelHidden = true
      reasons.push(`operator removed the label: ${c.reason}`)
    }
  }
  return { class: klass, exchange, vetoed: [...vetoed], label, labelHidden, reasons }
}

/** How much a piece of evidence counts: a sweep into an exchange less (−0.3) for an address that swapped on its own. */
const weight = (e: Evidence, traded: boolean) => (e.rule === "exchange_sweep" && traded ? Math.max(0, e.confidence - 0.3) : e.confidence)

const SOURCE_OF = { operator: "operator", label: "label_file", seed: "seed", rule: "rule" } as const
type ChosenBy = keyof typeof SOURCE_OF

// Module-level helpers, not closures per call: the engine resolves thousands of addresses a block, and under tsx
// (esbuild's keepNames) every named closure is also a defineProperty call.
const allowedBy = (vetoed: ReadonlyArray<WalletClass> | undefined, c: WalletClass) => vetoed === undefined || !vetoed.includes(c)
const addReason = (reasons: Array<string>, r: string) => void (reasons.includes(r) || reasons.push(r))

/** The reasons of an identity resolved without them (never written to: reasons are only added when explaining). */
const NO_REASONS: Array<string> = Object.freeze([]) as unknown as Array<string>

/** The sentences behind an identity, what decided first (`resolveIdentity` with `explain`). */
const reasonsOf = (
  input: ResolveInput, by: ChosenBy | undefined, decisive: Evidence | undefined, fact: IdentityLabel | undefined,
  labelled: boolean, seeded: boolean, traded: boolean
): Array<string> => {
  const { correction, label, tracked } = input
  const vetoed = correction?.vetoed
  const reasons: Array<string> = []
  if (by === "operator") addReason(reasons, correction?.reasons.at(-1) ?? "set by an operator")
  if (decisive !== undefined) addReason(reasons, reasonOf(decisive))
  if (labelled) addReason(reasons, `labelled "${fact!.name}" in ${fact!.file}`)
  if (seeded) addReason(reasons, `tracked wallet "${tracked!.label}" (${tracked!.source})`)
  const rules = input.evidence.filter((e) => allowedBy(vetoed, e.class)).sort((a, b) => weight(b, traded) - weight(a, traded))
  // The decisive evidence's sentence is in already (building it again only to find it there was garbage).
  for (const e of rules) if (e !== decisive) addReason(reasons, reasonOf(e))
  if (label?.doubt === true) addReason(reasons, `doubtful label "${label.name}" in ${label.file}: not used`)
  if (fact !== undefined && !allowedBy(vetoed, fact.class)) addReason(reasons, `label "${fact.name}" says ${fact.class}, which an operator ruled out`)
  for (const r of correction?.reasons ?? []) addReason(reasons, r)
  if (input.kind?.delegate != null) addReason(reasons, `EIP-7702: delegates its code to ${input.kind.delegate}`)
  return reasons
}

/**
 * The identity of an address. `explain: false` leaves `reasons` empty: deciding costs little (one pass over the
 * evidence, nothing allocated but the result), the sentences do — the listener writes them only for what it stores.
 */
export const resolveIdentity = (input: ResolveInput, explain = true): Identity => {
  const { correction, label, tracked } = input
  const vetoed = correction?.vetoed
  const fact = label !== undefined && !label.doubt ? label : undefined
  let traded = false
  for (const e of input.evidence) if (e.rule === "dex_swap") traded = true
  let top: Evidence | undefined
  let strong: Evidence | undefined
  for (const e of input.evidence) {
    if (!allowedBy(vetoed, e.class)) continue
    const w = weight(e, traded)
    if (top === undefined || w > weight(top, traded)) top = e
    if (w >= STRONG && NON_HUMAN_CLASSES.has(e.class) && (strong === undefined || w > weight(strong, traded))) strong = e
  }
  const labelled = fact !== undefined && allowedBy(vetoed, fact.class)
  const seeded = tracked !== undefined && tracked.source !== "custom" && allowedBy(vetoed, "whale")
  // The choice, by precedence (see the header), in locals: every block resolves thousands of addresses, and an
  // object per choice (and per label shown) was garbage of each.
  let by: ChosenBy | undefined
  let chosenClass: WalletClass = "unknown"
  let confidence = 0
  let chosenExchange: string | null = null
  let decisive: Evidence | undefined
  if (correction?.class != null) {
    by = "operator"
    chosenClass = correction.class
    confidence = 1
    chosenExchange = correction.exchange
  } else if (labelled) {
    by = "label"
    chosenClass = fact.class
    confidence = 0.95
    chosenExchange = fact.exchange
  } else if (strong !== undefined || (!seeded && top !== undefined)) {
    // Strong evidence outranks a tracked wallet; the strongest remaining evidence does not.
    decisive = strong ?? top!
    by = "rule"
    chosenClass = decisive.class
    confidence = weight(decisive, traded)
    chosenExchange = decisive.exchange
  } else if (seeded) {
    by = "seed"
    chosenClass = "whale"
    confidence = 0.9
  }

  const reasons = explain ? reasonsOf(input, by, decisive, fact, labelled, seeded, traded) : NO_REASONS
  const exchange = chosenClass === "exchange" ? chosenExchange : null
  let shownLabel: string | null = null
  let shownSource: IdentitySource | null = null
  if (correction?.label != null) {
    shownLabel = correction.label
    shownSource = "operator"
  } else if (correction?.labelHidden === true) {
    // The operator hid the files' and the seed's labels: none shown.
  } else if (fact !== undefined) {
    shownLabel = fact.name
    shownSource = "label_file"
  } else if (tracked !== undefined && tracked.source !== "custom") {
    shownLabel = tracked.label
    shownSource = "seed"
  } else if (chosenClass === "exchange" && by === "rule" && exchange !== null) {
    shownLabel = `${exchange} deposit address`
    shownSource = "rule"
  }
  return {
    address: input.address, kind: input.kind?.kind ?? "unknown", delegate: input.kind?.delegate ?? null,
    class: chosenClass, classSource: by === undefined ? null : SOURCE_OF[by], exchange,
    label: shownLabel, labelSource: shownSource,
    confidence: Math.round(confidence * 100) / 100, reasons: reasons.length > 8 ? reasons.slice(0, 8) : reasons
  }
}
