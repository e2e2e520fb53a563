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

interface Candidate {
  readonly class: WalletClass
  readonly source: IdentitySource
  readonly confidence: number
  /** Why, written only when asked for (`explain`). */
  readonly reason: () => string
  readonly exchange: string | null
}

/**
 * The identity of an address. `explain: false` leaves `reasons` empty: what decides costs little, the sentences do
 * (the listener writes them only for the identities it stores).
 */
export const resolveIdentity = (input: ResolveInput, explain = true): Identity => {
  const { correction, label, tracked } = input
  const vetoed = correction?.vetoed ?? []
  const allowed = (c: WalletClass) => !vetoed.includes(c)
  const fact = label !== undefined && !label.doubt ? label : undefined
  const traded = input.evidence.some((e) => e.rule === "dex_swap")
  const rules: Array<Candidate> = input.evidence
    .filter((e) => allowed(e.class))
    .map((e) => ({
      class: e.class, source: "rule" as const, reason: () => reasonOf(e), exchange: e.exchange,
      confidence: Math.max(0, e.rule === "exchange_sweep" && traded ? e.confidence - 0.3 : e.confidence)
    }))
    .sort((a, b) => b.confidence - a.confidence)
  const labelled: Candidate | undefined = fact !== undefined && allowed(fact.class)
    ? { class: fact.class, source: "label_file", confidence: 0.95, reason: () => `labelled "${fact.name}" in ${fact.file}`, exchange: fact.exchange }
    : undefined
  const seeded: Candidate | undefined = tracked !== undefined && tracked.source !== "custom" && allowed("whale")
    ? { class: "whale", source: "seed", confidence: 0.9, reason: () => `tracked wallet "${tracked.label}" (${tracked.source})`, exchange: null }
    : undefined
  const operator: Candidate | undefined = correction?.class != null
    ? { class: correction.class, source: "operator", confidence: 1, reason: () => correction.reasons.at(-1) ?? "set by an operator", exchange: correction.exchange }
    : undefined
  const strong = rules.find((r) => r.confidence >= STRONG && NON_HUMAN_CLASSES.has(r.class))
  const chosen = operator ?? labelled ?? strong ?? seeded ?? rules[0]

  const reasons: Array<string> = []
  if (explain) {
    const add = (r: string) => void (reasons.includes(r) || reasons.push(r))
    if (chosen !== undefined) add(chosen.reason())
    for (const c of [labelled, seeded, ...rules]) if (c !== undefined && c !== chosen) add(c.reason())
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
    : klass === "exchange" && chosen?.source === "rule" && exchange !== null ? { label: `${exchange} deposit address`, source: "rule" as const }
    : null
  return {
    address: input.address, kind: input.kind?.kind ?? "unknown", delegate: input.kind?.delegate ?? null,
    class: klass, classSource: chosen?.source ?? null, exchange,
    label: shown?.label ?? null, labelSource: shown?.source ?? null,
    confidence: Math.round((chosen?.confidence ?? 0) * 100) / 100, reasons: reasons.slice(0, 8)
  }
}
