/**
 * One piece of evidence is injected once: records with the same title and the same files (ten
 * similar sessions leave ten "It printed hi." summaries) say the same thing to the agent.
 *
 * @module
 */
import type { MemoryRecord } from "@kiro-learn/core/schemas";

/** Same title (case and outer spaces aside) and same files: the same evidence. */
export function evidenceKey(record: MemoryRecord): string {
  return `${record.title.trim().toLowerCase()}\u0000${[...record.files_touched].sort().join("\n")}`;
}

/** The items whose record is the first of its evidence, in their order, at most `limit`. */
export function firstOfEachEvidence<T>(
  items: readonly T[],
  options: { record: (item: T) => MemoryRecord; limit?: number },
): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    if (options.limit !== undefined && out.length >= options.limit) break;
    const key = evidenceKey(options.record(item));
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}
