/**
 * The folds of a run of records matched synchronously against one index: an alert with a cooldown that matches
 * again at the same block time is only counted on its first match (the cooldown gate would fold it anyway, and a
 * block matches a broad alert hundreds of times).
 */
import type { NewDelivery } from "../delivery/Rows"
import type { Sub } from "./MatchIndex"

/** A run's first match of an alert with a cooldown at one block time, and how many more matches it folded. */
export interface Fold {
  readonly sub: Sub
  readonly ts: string
  readonly first: NewDelivery
  extra: number
}

/**
 * Folds found by the alert's slot in the index: its latest fold in a flat array — a block's records share one time,
 * so a match costs one read and one compare (a block makes ~350k matches) — and its earlier ones, of a run over
 * several blocks, in a map.
 */
export class Folds {
  readonly all: Array<Fold> = []
  private readonly latest: Array<Fold | undefined>
  private readonly earlier = new Map<Sub, Array<Fold>>()
  constructor(slots: number) {
    this.latest = new Array<Fold | undefined>(slots).fill(undefined)
  }
  find(sub: Sub, ts: string): Fold | undefined {
    const f = this.latest[sub.slot!]
    if (f === undefined || f.sub !== sub) return undefined
    return f.ts === ts ? f : this.earlier.get(sub)?.find((e) => e.ts === ts)
  }
  add(fold: Fold) {
    const slot = fold.sub.slot!
    const previous = this.latest[slot]
    if (previous !== undefined && previous.sub === fold.sub) {
      const list = this.earlier.get(fold.sub)
      if (list === undefined) this.earlier.set(fold.sub, [previous])
      else list.push(previous)
    }
    this.latest[slot] = fold
    this.all.push(fold)
  }
  /** The first matches that folded others, with how many. */
  extras(): Map<NewDelivery, number> {
    const out = new Map<NewDelivery, number>()
    for (const f of this.all) if (f.extra > 0) out.set(f.first, f.extra)
    return out
  }
}
