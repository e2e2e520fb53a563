/**
 * The label files, read once and looked up from memory: the chain's data/labels.json (exchange wallets, routers)
 * and data/identity-labels.json (funds, market makers, bridges, more routers, each naming where it comes from).
 *
 * Doubt: a label whose name or source has a "?" ("IOSG Ventures?") is kept, but only to be named as doubtful — it
 * never gives a class or a label shown as fact (`fact` skips it). A malformed file is a programming error (the files
 * ship with the code): loading throws, naming it.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { z } from "zod"
import { WalletClass } from "../../../schema/identity"
import { DATA_DIR, loadReference } from "../chain/Reference"
import type { IdentityLabel } from "./Types"

export const IDENTITY_LABELS_FILE = "identity-labels.json"

const IdentityLabelEntry = z.object({
  address: z.string().regex(/^0x[0-9a-f]{40}$/),
  name: z.string().min(1),
  class: WalletClass.exclude(["whale", "trader", "unknown"]),
  exchange: z.string().min(1).optional(),
  source: z.string().min(1)
})

export const isDoubtful = (...texts: ReadonlyArray<string>) => texts.some((t) => t.includes("?"))

export class LabelBook {
  readonly #labels: ReadonlyMap<string, IdentityLabel>
  constructor(labels: ReadonlyMap<string, IdentityLabel>) {
    this.#labels = labels
  }
  /** Any label, doubtful ones included (to be named as doubtful). */
  get(address: string): IdentityLabel | undefined {
    return this.#labels.get(address)
  }
  /** A label held as fact: never a doubtful one. */
  fact(address: string): IdentityLabel | undefined {
    const label = this.#labels.get(address)
    return label === undefined || label.doubt ? undefined : label
  }
  get size() {
    return this.#labels.size
  }
}

/** Builds a book from entries (tests, and the loader below). The first entry of an address wins. */
export const labelBook = (entries: ReadonlyArray<{ readonly address: string } & IdentityLabel>): LabelBook => {
  const map = new Map<string, IdentityLabel>()
  for (const { address, ...label } of entries) if (!map.has(address)) map.set(address, label)
  return new LabelBook(map)
}

/** Reads both files from `dir` (default: the repository's data/). */
export const loadLabelBook = (dir: string = DATA_DIR): LabelBook => {
  const chain = [...loadReference(dir).labels.values()].map((l) => ({
    address: l.address, name: l.name, class: l.category, exchange: l.category === "exchange" ? l.exchange : null,
    file: "labels.json", doubt: isDoubtful(l.name)
  }))
  const file = join(dir, IDENTITY_LABELS_FILE)
  const parsed = z.array(IdentityLabelEntry).safeParse(JSON.parse(readFileSync(file, "utf8")))
  if (!parsed.success) throw new Error(`${file} is invalid: ${z.prettifyError(parsed.error)}`)
  const own = parsed.data.map((e) => ({
    address: e.address, name: e.name, class: e.class, exchange: e.exchange ?? null,
    file: `${IDENTITY_LABELS_FILE} (${e.source})`, doubt: isDoubtful(e.name, e.source)
  }))
  return labelBook([...chain, ...own])
}
