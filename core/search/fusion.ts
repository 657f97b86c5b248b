/**
 * Reciprocal-rank fusion (Cormack et al.): each ranked list gives an item `weight / (k + rank)`
 * (rank 1-based), the item's fused score is the sum over the lists it appears in, and a list it
 * is missing from gives nothing.
 *
 * Ties are broken deterministically: fused score descending, then `created_at` descending
 * (newer first), then id ascending. The sum is taken in ascending order of the contributions, so
 * the result does not depend on the order the lists are given in, even at the last bit.
 *
 * @module
 */

/** The `k` of reciprocal-rank fusion: damps the head so no single list dominates. */
export const RRF_K = 60;

/** One ranked list to fuse: ids best first, and how much the list counts (default 1). */
export interface RankedList {
  /** Ids, best first. A repeated id keeps its first (best) rank. */
  ids: readonly string[];
  /** Weight of the list's contributions (default 1; 0 makes the list a pure tie-breaker). */
  weight?: number;
}

/** A fused item. */
export interface FusedItem {
  /** The id. */
  id: string;
  /** Fused score (higher is better). */
  score: number;
  /** 1-based rank in each input list, `null` where absent (same order as the lists). */
  ranks: (number | null)[];
}

/** Options for {@link rrfFuse}. */
export interface RrfOptions {
  /** The damping constant (default {@link RRF_K}). */
  k?: number;
  /** Creation time (ISO, sortable) per id, for the second tie-break; missing sorts oldest. */
  createdAt?: ReadonlyMap<string, string>;
}

/**
 * Fuses ranked lists. Every id of every list appears exactly once in the output (nothing is
 * truncated: callers cut to their limit after fusing, so the `created_at` tie-break applies
 * before the cut).
 */
export function rrfFuse(lists: readonly RankedList[], options: RrfOptions = {}): FusedItem[] {
  const k = options.k ?? RRF_K;
  if (!(k >= 0) || !Number.isFinite(k)) throw new RangeError(`rrf k must be ≥ 0, got ${k}`);
  const parts = new Map<string, { contributions: number[]; ranks: (number | null)[] }>();
  lists.forEach((list, listIndex) => {
    const weight = list.weight ?? 1;
    let rank = 0;
    for (const id of list.ids) {
      let entry = parts.get(id);
      if (!entry) {
        entry = { contributions: [], ranks: lists.map(() => null) };
        parts.set(id, entry);
      }
      if (entry.ranks[listIndex] !== null) continue;
      rank++;
      entry.ranks[listIndex] = rank;
      entry.contributions.push(weight / (k + rank));
    }
  });
  const created = options.createdAt;
  const items: FusedItem[] = [];
  for (const [id, entry] of parts) {
    entry.contributions.sort((a, b) => a - b);
    let score = 0;
    for (const c of entry.contributions) score += c;
    items.push({ id, score, ranks: entry.ranks });
  }
  return items.sort((a, b) => {
    if (a.score !== b.score) return b.score - a.score;
    const ca = created?.get(a.id) ?? "";
    const cb = created?.get(b.id) ?? "";
    if (ca !== cb) return ca < cb ? 1 : -1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}
