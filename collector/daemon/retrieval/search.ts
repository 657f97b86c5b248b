/**
 * The one ranking every surface uses: the prompt hook, `kiro-learn search`, MCP `search_memory`
 * and `GET /v1/memories/search` all call {@linkcode createSearcher}'s function, and its default
 * mode is exactly what the hook injects.
 *
 * - `ranked` (the default): BM25 candidates over code-aware text, ordered by the learned
 *   reranker (`core/search/rerank.ts`), one of whose features is the namespace's own term space
 *   when it has one (`collector/daemon/term_spaces`); nothing when even the best candidate scores under the
 *   model's gate (a prompt about nothing in memory); records with the same title and files
 *   count once (the same change remembered twice is one piece of evidence).
 * - `lexical`: plain BM25 order, for debugging and comparison.
 * - `vector`: the embedding index alone (empty while the embedder is off or not ready).
 * - `hybrid`: the earlier BM25 + vector + recency rank fusion, kept for comparison only.
 * - `candidates`: every candidate the reranker would order (in BM25 order, unranked, ungated,
 *   `limit` ignored): what the benchmark's candidate recall is measured on.
 *
 * Why the vectors are not in the default: on the real retrieval set, reciprocal-rank fusion with
 * use-lite lowered recall@5 from 0.32 to 0.26 (a weak list weighed as much as a strong one, and
 * recency outranked relevance), and even as one more feature of the learned reranker its
 * cosine earned no weight (0.504 → 0.503 recall@5). `docs/retrieval.md` has
 * the figures.
 *
 * @module
 */
import {
  GATE_MIN_CORPUS,
  gateScore,
  type LexicalCandidates,
  rerank,
  RERANK_MODEL,
  type RerankModel,
  type TermSpace,
} from "@kiro-learn/core/search";
import type { ScoredRecord } from "@kiro-learn/core/storage";
import type { Searcher } from "./assembler.ts";
import { firstOfEachEvidence } from "./_evidence.ts";

/** The ranking modes (`GET /v1/memories/search?mode=…`). */
export const SEARCH_MODES = ["ranked", "lexical", "vector", "hybrid", "candidates"] as const;

/** One of {@linkcode SEARCH_MODES}. */
export type SearchMode = typeof SEARCH_MODES[number];

/** The default mode: what the prompt hook injects. */
export const DEFAULT_SEARCH_MODE: SearchMode = "ranked";

/**
 * How many BM25 candidates the reranker orders. Scored as of each fix on the real set, the answer
 * is among the best 50 for 83% of prompts and among the best 100 for 88% (the reranker's
 * ceiling), and the ranking is no worse for the deeper pool; the features of 50 more candidates
 * cost a few milliseconds at most (docs/benchmarks.md).
 */
export const CANDIDATE_DEPTH = 100;

/** A search in one namespace with a chosen mode. */
export type ModeSearcher = (
  namespace: string,
  query: string,
  options: { limit: number; mode?: SearchMode },
) => Promise<ScoredRecord[]>;

/** What the searcher reads. */
export interface SearchSources {
  /** BM25 candidates with per-column scores (`Storage.searchCandidates`). */
  searchCandidates(
    namespace: string,
    query: string,
    options: { limit: number },
  ): Promise<LexicalCandidates>;
  /** Plain BM25 (`Storage.searchLexical`). */
  searchLexical: Searcher;
  /** The embedding index alone (`mode=vector`). */
  searchVector?: Searcher;
  /** The rank fusion of BM25, vectors and recency (`mode=hybrid`). */
  searchHybrid?: Searcher;
  /**
   * The namespace's term space if one is ready (`collector/daemon/term_spaces`): synchronous,
   * so a search never waits for one; without it the reranker's `term_space` column is neutral.
   */
  termSpace?: (namespace: string) => TermSpace | null;
}

/** What one ranked search did (for logs and tests). */
export interface SearchTrace {
  /** The mode. */
  mode: SearchMode;
  /** Candidates ranked. */
  candidates: number;
  /** The gate's score of the best candidate (ranked mode), or null. */
  best: number | null;
  /** True when the gate withheld every candidate. */
  gated: boolean;
  /** True when the namespace's term space took part (ranked mode). */
  termSpace: boolean;
}

/** Builds the searcher every surface uses. It rejects only when the storage rejects. */
export function createSearcher(
  sources: SearchSources,
  options: {
    model?: RerankModel;
    candidateDepth?: number;
    onSearch?: (trace: SearchTrace) => void;
  } = {},
): ModeSearcher {
  const model = options.model ?? RERANK_MODEL;
  const depth = options.candidateDepth ?? CANDIDATE_DEPTH;
  return async (namespace, query, { limit, mode = DEFAULT_SEARCH_MODE }) => {
    if (mode === "lexical") return await sources.searchLexical(namespace, query, { limit });
    if (mode === "vector") {
      return sources.searchVector ? await sources.searchVector(namespace, query, { limit }) : [];
    }
    if (mode === "hybrid") {
      return sources.searchHybrid
        ? await sources.searchHybrid(namespace, query, { limit })
        : await sources.searchLexical(namespace, query, { limit });
    }
    const { candidates, terms, corpus, newest } = await sources.searchCandidates(namespace, query, {
      limit: Math.max(depth, limit),
    });
    if (mode === "candidates") return candidates.map((c) => ({ record: c.record, score: c.bm25 }));
    const space = sources.termSpace?.(namespace) ?? null;
    const ranked = rerank(query, candidates, { terms, model, space, newest });
    const best = ranked.length > 0 ? gateScore(ranked[0].features, model) : null;
    const gated = best !== null && corpus >= GATE_MIN_CORPUS && best < model.gate;
    options.onSearch?.({
      mode,
      candidates: candidates.length,
      best,
      gated,
      termSpace: space !== null,
    });
    if (gated) return [];
    return firstOfEachEvidence(ranked, { record: (c) => c.record, limit })
      .map((c) => ({ record: c.record, score: c.score }));
  };
}

/** True when `value` names a mode. */
export function isSearchMode(value: string): value is SearchMode {
  return (SEARCH_MODES as readonly string[]).includes(value);
}
