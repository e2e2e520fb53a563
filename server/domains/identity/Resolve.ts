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

const txList = (e: Evidence) => e.txs.slice(0, 2).join(", ")
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

type Chosen =
  | { readonly by: "operator" | "label" | "seed"; readonly class: WalletClass; readonly confidence: number; readonly exchange: string | null }
  | { readonly by: "rule"; readonly class: WalletClass; readonly confidence: number; readonly exchange: string | null; readonly evidence: Evidence }

const SOURCE_OF = { operator: "operator", label: "label_file", seed: "seed", rule: "rule" } as const

// Module-level helpers, not closures per call: the engine resolves thousands of addresses a block, and under tsx
// (esbuild's keepNames) every named closure is also a defineProperty call.
const allowedBy = (vetoed: ReadonlyArray<WalletClass> | undefined, c: WalletClass) => vetoed === undefined || !vetoed.includes(c)
const byRule = (e: Evidence, traded: boolean): Chosen => ({ by: "rule", class: e.class, confidence: weight(e, traded), exchange: e.exchange, evidence: e })

/** The reasons of an identity resolved without them (never written to: `add` runs only when explaining). */
const NO_REASONS: Array<string> = Object.freeze([]) as unknown as Array<string>

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
  const chosen: Chosen | undefined =
    correction?.class != null ? { by: "operator", class: correction.class, confidence: 1, exchange: correction.exchange }
    : labelled ? { by: "label", class: fact.class, confidence: 0.95, exchange: fact.exchange }
    : strong !== undefined ? byRule(strong, traded)
    : seeded ? { by: "seed", class: "whale", confidence: 0.9, exchange: null }
    : top !== undefined ? byRule(top, traded)
    : undefined

  // Undecided without reasons (most addresses of a block): one shared empty list, not two new arrays per identity.
  const reasons: Array<string> = explain ? [] : NO_REASONS
  if (explain) {
    const allowed = (c: WalletClass) => allowedBy(vetoed, c)
    const add = (r: string) => void (reasons.includes(r) || reasons.push(r))
    const labelReason = () => `labelled "${fact!.name}" in ${fact!.file}`
    const seedReason = () => `tracked wallet "${tracked!.label}" (${tracked!.source})`
    if (chosen?.by === "operator") add(correction?.reasons.at(-1) ?? "set by an operator")
    if (chosen?.by === "rule") add(reasonOf(chosen.evidence))
    if (labelled) add(labelReason())
    if (seeded) add(seedReason())
    const rules = input.evidence.filter((e) => allowed(e.class)).sort((a, b) => weight(b, traded) - weight(a, traded))
    for (const e of rules) add(reasonOf(e))
    if (label?.doubt === true) add(`doubtful label "${label.name}" in ${label.file}: not used`)
    if (fact !== undefined && !allowed(fact.class)) add(`label "${fact.name}" says ${fact.class}, which an operator ruled out`)
    for (const r of correction?.reasons ?? []) add(r)
    if (input.kind?.delegate != null) add(`EIP-7702: delegates its code to ${input.kind.delegate}`)
  }

  const klass = chosen?.class ?? "unknown"
  const exchange = klass === "exchange" ? chosen?.exchange ?? null : null
  const shown = correction?.label != null
    ? { label: correction.label, source: "operator" as const }
    : correction?.labelHidden === true ? null
    : fact !== undefined ? { label: fact.name, source: "label_file" as const }
    : tracked !== undefined && tracked.source !== "custom" ? { label: tracked.label, source: "seed" as const }
    : klass === "exchange" && chosen?.by === "rule" && exchange !== null ? { label: `${exchange} deposit address`, source: "rule" as const }
    : null
  return {
    address: input.address, kind: input.kind?.kind ?? "unknown", delegate: input.kind?.delegate ?? null,
    class: klass, classSource: chosen === undefined ? null : SOURCE_OF[chosen.by], exchange,
    label: shown?.label ?? null, labelSource: shown?.source ?? null,
    confidence: Math.round((chosen?.confidence ?? 0) * 100) / 100, reasons: reasons.length > 8 ? reasons.slice(0, 8) : reasons
  }
}
