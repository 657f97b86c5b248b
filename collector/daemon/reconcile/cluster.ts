/**
 * Intra-batch clustering (seed 002): union-find over a run's candidates, joining every pair whose
 * embeddings are both present and at least `threshold` cosine-similar (inclusive).
 *
 * Candidates without an embedding are never joined: each is a singleton. Clusters come out in
 * the order of their lowest member index, members ascending. A cluster's centroid is the
 * L2-normalised mean of its members' embeddings, or `null` when any member lacks one (which,
 * since such members are singletons, means exactly the embedding-less singletons).
 *
 * @module
 */
import { cosineSimilarity, normalizedMean } from "@kiro-learn/core/search";

/** One cluster of candidate indices. */
export interface Cluster {
  /** Indices into the input, ascending. */
  members: number[];
  /** L2-normalised mean of the members' embeddings; `null` if any member has none. */
  centroid: Float32Array | null;
}

/** Clusters `embeddings` (one per candidate, `null` when a candidate has none). */
export function clusterCandidates(
  embeddings: readonly (Float32Array | null | undefined)[],
  options: { threshold: number },
): Cluster[] {
  const n = embeddings.length;
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  for (let i = 0; i < n; i++) {
    const a = embeddings[i];
    if (!a) continue;
    for (let j = i + 1; j < n; j++) {
      const b = embeddings[j];
      // Vectors of different lengths come from different models: never the same thing.
      if (!b || b.length !== a.length) continue;
      if (cosineSimilarity(a, b) >= options.threshold) {
        const ra = find(i);
        const rb = find(j);
        // The smaller index stays the root, so a cluster is named by its lowest member.
        if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
      }
    }
  }
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const root = find(i);
    const members = byRoot.get(root);
    if (members) members.push(i);
    else byRoot.set(root, [i]);
  }
  return [...byRoot.values()]
    .sort((x, y) => x[0] - y[0])
    .map((members) => {
      const vectors = members.map((i) => embeddings[i]);
      const complete = vectors.every((v): v is Float32Array => v instanceof Float32Array);
      return { members, centroid: complete ? normalizedMean(vectors) : null };
    });
}
