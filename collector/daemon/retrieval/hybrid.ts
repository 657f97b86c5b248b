/**
 * Hybrid retrieval: BM25 (the FTS5 path), vector cosine above a similarity floor, and recency,
 * fused by reciprocal-rank fusion.
 *
 * - Both relevance lists are fetched `limit × depthMultiplier` deep, so fusion can lift an item
 *   that one list ranks just below the cut.
 * - The vector side keeps only hits at or above `minSimilarity`: without a floor every prompt
 *   would inject the nearest records whatever they are (kiro-learn bug 26).
 * - Near-duplicate records count once on the vector side (`collapseAbove`): otherwise a cluster
 *   of near-identical records takes every vector rank, and each copy weighs in the fusion as
 *   much as a distinct match.
 * - Lexical hits far below the query's best BM25 score (matches on a single common word, since
 *   FTS5 ORs the terms) are left out of the fusion: in RRF they would count as much as strong
 *   matches.
 * - Recency ranks the union of the relevance candidates by `created_at` (it never adds a
 *   candidate of its own) and counts `recencyWeight` of a relevance list, so among records that
 *   are about equally relevant the newer one wins.
 * - When the vector side contributes nothing — embedder off or failed, query embedding timed
 *   out, vector search failed, or no vector hit above the floor — the result IS the lexical
 *   result: the same records, order and scores as `searchLexical` at `limit`.
 *
 * The query is embedded while the lexical search runs. The embedding gets its own deadline,
 * shorter than the retrieval budget, so a slow embedder degrades to lexical results instead of
 * an empty injection; the assembler's budget still wraps the whole search.
 *
 * @module
 */
import { RRF_K, rrfFuse } from "@kiro-learn/core/search";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import type { ScoredRecord } from "@kiro-learn/core/storage";
import type { VectorHit } from "../embedding/mod.ts";
import type { Searcher } from "./assembler.ts";

/** What hybrid retrieval reads. Plain functions, so any embedder or index can be plugged in. */
export interface HybridSources {
  /** The FTS5 path (`Storage.searchLexical`). */
  searchLexical(
    namespace: string,
    query: string,
    options: { limit: number },
  ): Promise<ScoredRecord[]>;
  /** Full records by id, in the order asked, missing ids skipped (`Storage.getRecords`). */
  getRecords(ids: readonly string[]): Promise<MemoryRecord[]>;
  /**
   * The query's embedding, or `null` when the embedder is off, not ready or failed. May also
   * reject; both mean "lexical only".
   */
  embedQuery(text: string, options: { timeoutMs: number }): Promise<Float32Array | null>;
  /**
   * Nearest records of exactly `namespace` with similarity ≥ `minSimilarity`, best first, at
   * most `k`; with `collapseAbove`, a hit at least that similar to a better hit is left out (the
   * vector index's near-duplicate collapsing).
   */
  searchVectors(
    namespace: string,
    query: Float32Array,
    options: { k: number; minSimilarity: number; collapseAbove?: number },
  ): Promise<VectorHit[]>;
}

/** Why a search fell back to the lexical result. */
export type LexicalReason =
  | "embedder_off"
  | "embed_failed"
  | "embed_timeout"
  | "vector_failed"
  | "no_vector_hits";

/** What one search did (for logs, the audit and tests). */
export interface HybridTrace {
  /** `hybrid` when the lists were fused, else `lexical`. */
  mode: "hybrid" | "lexical";
  /** Why it stayed lexical. */
  reason?: LexicalReason;
  /** Lexical candidates fetched. */
  lexical: number;
  /** Vector candidates above the floor. */
  vector: number;
  /** Time spent waiting for the query embedding. */
  embed_ms: number;
}

/** Tuning of {@link createHybridSearcher}. */
export interface HybridOptions {
  /**
   * Similarity floor of the vector side: a number, or a function of the moment's embedding model
   * (default {@link minSimilarityFor} of `modelId()`).
   */
  minSimilarity?: number | (() => number);
  /** The embedding model in use, for the per-model default floor. */
  modelId?: () => string | null;
  /** RRF damping constant (default 60). */
  rrfK?: number;
  /** Candidates fetched per list, as a multiple of the limit (default 4). */
  depthMultiplier?: number;
  /** Deadline of the query embedding (default {@link DEFAULT_EMBED_TIMEOUT_MS}). */
  embedTimeoutMs?: number;
  /** Weight of the recency list relative to a relevance list (default {@link DEFAULT_RECENCY_WEIGHT}). */
  recencyWeight?: number;
  /**
   * Lexical hits scoring below this fraction of the best BM25 score of the query are left out of
   * the fusion (default {@link DEFAULT_LEXICAL_CUT}; 0 keeps all). They matched only the query's
   * commonest words; in rank fusion they would weigh as much as strong matches.
   */
  lexicalCut?: number;
  /**
   * Near-duplicate collapsing of the vector list (default {@link DEFAULT_COLLAPSE_ABOVE}; a value
   * above 1 turns it off): of records at least this similar to each other, only the best counts
   * as vector evidence. The others can still come through the lexical list.
   */
  collapseAbove?: number;
  /** Told about every search. */
  onSearch?: (trace: HybridTrace) => void;
}

/**
 * Default similarity floor, for normalised sentence-transformer embeddings (MiniLM class), where
 * unrelated texts score near 0.
 */
export const DEFAULT_MIN_SIMILARITY = 0.35;

/**
 * Floors measured per model on the retrieval-quality set (`collector/tooling/quality/`). Universal
 * Sentence Encoder lite scores even unrelated text of the same domain at 0.3–0.5 (median of all
 * query–record pairs 0.35, 90th percentile 0.52), so its floor sits higher; at 0.4 it keeps 83%
 * of the true answers (median similarity 0.50). It cannot tell a question with no answer in the
 * memory (best hits at 0.31–0.68) from one with an answer, so it bounds noise rather than
 * removing it: 0.45 or 0.5 drop true answers faster than noise (the quality sweep, on either
 * half of the queries).
 */
const MODEL_FLOORS: readonly [prefix: string, floor: number][] = [["use-lite@", 0.4]];

/** The similarity floor for vectors of `modelId` (see {@link DEFAULT_MIN_SIMILARITY}). */
export function minSimilarityFor(modelId: string | null | undefined): number {
  for (const [prefix, floor] of MODEL_FLOORS) if (modelId?.startsWith(prefix)) return floor;
  return DEFAULT_MIN_SIMILARITY;
}

/**
 * Default recency weight: a quarter of a relevance list, enough to order near-equals newest
 * first, too little to lift an irrelevant record (on the quality set: recall@5 0.57 without,
 * 0.60 with, 0.59 at half a list).
 */
export const DEFAULT_RECENCY_WEIGHT = 0.25;

/**
 * Default lexical cut. FTS5 ORs the query's terms, so the lexical list's tail is records that
 * share one common word with the prompt; at 0.7 of the best BM25 score the fused recall@5 on
 * the quality set rises from 0.57 (no cut) to 0.60 and MRR from 0.43 to 0.47 (0.47 → 0.59
 * recall@5 on the even-numbered queries the settings are chosen on).
 */
export const DEFAULT_LEXICAL_CUT = 0.7;

/**
 * Default near-duplicate collapsing of the vector list. Without it a cluster of near-identical
 * records (the same routine change logged in many sessions, before reconciliation merges them)
 * fills every vector rank with one piece of evidence, and in rank fusion each copy counts as much
 * as a distinct match. With use-lite, 0.9 is above every pair of distinct hand-written records
 * of the quality set (their highest is 0.87) and below its templated near-duplicates (median
 * nearest neighbour 0.93); there hybrid recall@5 goes from 0.53 to 0.60 and MRR from 0.45 to
 * 0.47 (0.85 and 0.95 do the same on the even-numbered queries the settings are chosen on).
 * Reconciliation's neighbour search does not collapse: it looks for exactly these.
 */
export const DEFAULT_COLLAPSE_ABOVE = 0.9;

/** Default deadline of the query embedding: half the default 500 ms retrieval budget. */
export const DEFAULT_EMBED_TIMEOUT_MS = 250;

/** Default fetch depth multiplier. */
export const DEPTH_MULTIPLIER = 4;

const TIMED_OUT = Symbol("timed out");

/** Builds a hybrid {@link Searcher}. It rejects only when the lexical search itself rejects. */
export function createHybridSearcher(
  sources: HybridSources,
  options: HybridOptions = {},
): Searcher {
  const floorOption = options.minSimilarity;
  const floor = typeof floorOption === "number"
    ? () => floorOption
    : floorOption ?? (() => minSimilarityFor(options.modelId?.()));
  const k = options.rrfK ?? RRF_K;
  const multiplier = Math.max(1, options.depthMultiplier ?? DEPTH_MULTIPLIER);
  const embedTimeoutMs = options.embedTimeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS;
  const recencyWeight = options.recencyWeight ?? DEFAULT_RECENCY_WEIGHT;
  const lexicalCut = options.lexicalCut ?? DEFAULT_LEXICAL_CUT;
  const collapseAbove = options.collapseAbove ?? DEFAULT_COLLAPSE_ABOVE;

  return async (namespace, query, { limit }) => {
    const depth = limit * multiplier;
    const minSimilarity = floor();
    const started = performance.now();
    // Start the embedding first: it runs off-thread while the (synchronous) FTS query runs.
    const embedding = embedWithDeadline(sources, query, embedTimeoutMs);
    const lexical = await sources.searchLexical(namespace, query, { limit: depth });
    const lexicalOnly = (reason: LexicalReason, vector = 0, embedMs = 0) => {
      options.onSearch?.({
        mode: "lexical",
        reason,
        lexical: lexical.length,
        vector,
        embed_ms: embedMs,
      });
      return lexical.slice(0, limit);
    };
    const embedded = await embedding;
    const embedMs = performance.now() - started;
    if (embedded.kind !== "ok") return lexicalOnly(embedded.kind, 0, embedMs);

    let hits: VectorHit[];
    try {
      hits = await sources.searchVectors(namespace, embedded.vector, {
        k: depth,
        minSimilarity,
        collapseAbove,
      });
    } catch {
      return lexicalOnly("vector_failed", 0, embedMs);
    }
    // Defence in depth: the floor and the depth hold whatever the index does.
    hits = hits.filter((h) => h.similarity >= minSimilarity).slice(0, depth);
    if (hits.length === 0) return lexicalOnly("no_vector_hits", 0, embedMs);

    const byId = new Map<string, MemoryRecord>();
    for (const hit of lexical) byId.set(hit.record.record_id, hit.record);
    const missing = hits.map((h) => h.record_id).filter((id) => !byId.has(id));
    let fetched: MemoryRecord[];
    try {
      fetched = missing.length > 0 ? await sources.getRecords(missing) : [];
    } catch {
      return lexicalOnly("vector_failed", hits.length, embedMs);
    }
    // A vector hit from another namespace (or deleted since the index saw it) is dropped.
    for (const record of fetched) {
      if (record.namespace === namespace) byId.set(record.record_id, record);
    }
    const vectorIds = hits.map((h) => h.record_id).filter((id) => byId.has(id));
    if (vectorIds.length === 0) return lexicalOnly("no_vector_hits", 0, embedMs);

    // BM25 scores of one query are comparable with each other (not across queries).
    const best = lexical[0]?.score ?? 0;
    const lexicalIds = lexical
      .filter((h) => !(best > 0) || h.score >= lexicalCut * best)
      .map((h) => h.record.record_id);
    const createdAt = new Map([...byId].map(([id, r]) => [id, r.created_at]));
    // Recency ranks the fused candidates only: it breaks near-ties, it never adds a record.
    const candidates = new Set([...lexicalIds, ...vectorIds]);
    const recencyIds = [...candidates].map((id) => byId.get(id)!)
      .sort((a, b) =>
        a.created_at !== b.created_at
          ? (a.created_at < b.created_at ? 1 : -1)
          : (a.record_id < b.record_id ? -1 : a.record_id > b.record_id ? 1 : 0)
      )
      .map((r) => r.record_id);
    const fused = rrfFuse([
      { ids: lexicalIds },
      { ids: vectorIds },
      { ids: recencyIds, weight: recencyWeight },
    ], { k, createdAt });
    options.onSearch?.({
      mode: "hybrid",
      lexical: lexical.length,
      vector: vectorIds.length,
      embed_ms: embedMs,
    });
    return fused.slice(0, limit).map((f) => ({ record: byId.get(f.id)!, score: f.score }));
  };
}

type Embedded =
  | { kind: "ok"; vector: Float32Array }
  | { kind: "embedder_off" | "embed_failed" | "embed_timeout" };

async function embedWithDeadline(
  sources: HybridSources,
  query: string,
  timeoutMs: number,
): Promise<Embedded> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const pending = sources.embedQuery(query, { timeoutMs });
    // An embedder that ignores its own timeout must not hold retrieval hostage.
    const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
    });
    pending.catch(() => {});
    const result = await Promise.race([pending, deadline]);
    if (result === TIMED_OUT) return { kind: "embed_timeout" };
    if (result === null) return { kind: "embedder_off" };
    if (!(result instanceof Float32Array) || result.length === 0) return { kind: "embed_failed" };
    return { kind: "ok", vector: result };
  } catch {
    return { kind: "embed_failed" };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The vector side alone (`mode=vector`, for debugging): nearest records above the floor, best
 * first; empty while the embedder is off, failed or slow.
 */
export function createVectorSearcher(
  sources: Omit<HybridSources, "searchLexical">,
  options: Pick<HybridOptions, "minSimilarity" | "modelId" | "embedTimeoutMs"> = {},
): Searcher {
  return async (namespace, query, { limit }) => {
    const floor = typeof options.minSimilarity === "number"
      ? options.minSimilarity
      : options.minSimilarity?.() ?? minSimilarityFor(options.modelId?.());
    const embedded = await embedWithDeadline(
      { ...sources, searchLexical: () => Promise.resolve([]) },
      query,
      options.embedTimeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS,
    );
    if (embedded.kind !== "ok") return [];
    const hits = (await sources.searchVectors(namespace, embedded.vector, {
      k: limit,
      minSimilarity: floor,
    })).filter((h) => h.similarity >= floor);
    const records = new Map(
      (await sources.getRecords(hits.map((h) => h.record_id)))
        .filter((r) => r.namespace === namespace)
        .map((r) => [r.record_id, r]),
    );
    return hits.filter((h) => records.has(h.record_id))
      .map((h) => ({ record: records.get(h.record_id)!, score: h.similarity }));
  };
}
