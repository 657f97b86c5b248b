/**
 * Lexical search: the query rewrite against the index's own stems, BM25 candidates with
 * per-column scores, and the LIKE fallback.
 *
 * @module
 */
import {
  buildFtsQuery,
  escapeLike,
  type LexicalCandidates,
  planLexicalSearch,
  queryTokens,
  selectQueryTerms,
  type TermStats,
  type WeightedTerm,
} from "../search/mod.ts";
import type { ScoredRecord } from "./types.ts";
import { RECORD_COLUMNS, RECORD_COLUMNS_MR, recordFromRow, type Row } from "./_rows.ts";
import type { Connection } from "./_connection.ts";

/** BM25 column weights: title, summary, facts, changed paths, identifier parts. */
const BM25_WEIGHTS = "3.0, 1.0, 1.0, 3.0, 1.0";

/** How long a cached document frequency is trusted. */
const DF_CACHE_TTL_MS = 5 * 60_000;

/** Most document frequencies cached (the cache is cleared when full). */
const DF_CACHE_MAX = 100_000;

/** Stems and document frequencies of query tokens, from the index's own tokenizer. */
export function termStats(
  c: Connection,
  tokens: readonly string[],
  options: { corpusSize?: number } = {},
): TermStats[] {
  const insert = c.stmt("INSERT INTO temp.query_terms(rowid, t) VALUES (?, ?)");
  const stems: string[][] = tokens.map(() => []);
  try {
    tokens.forEach((token, i) => insert.run(i + 1, token));
    const rows = c.stmt(
      "SELECT term, doc FROM temp.query_terms_vocab ORDER BY doc, offset",
    ).all() as { term: string; doc: number }[];
    for (const row of rows) stems[row.doc - 1].push(row.term);
  } finally {
    c.stmt("DELETE FROM temp.query_terms").run();
  }
  return tokens.map((token, i) => {
    let min = Number.POSITIVE_INFINITY;
    for (const stem of stems[i]) {
      min = Math.min(min, documentFrequency(c, stem, options.corpusSize ?? 0));
    }
    return { token, stems: stems[i], df: Number.isFinite(min) ? min : 0 };
  });
}

/** A stem's document frequency, from a short-lived cache while the corpus size holds. */
export function documentFrequency(
  c: Connection,
  stem: string,
  corpus: number,
): number {
  const now = Date.now();
  const cached = c.dfCache.get(stem);
  // A cached figure is kept while it is recent AND the corpus has not grown or shrunk by more
  // than a quarter since (a bulk import would otherwise make every term look rare).
  if (
    cached && now - cached.at < DF_CACHE_TTL_MS && corpus <= cached.corpus * 1.25 + 100 &&
    corpus >= cached.corpus * 0.75 - 100
  ) {
    return cached.df;
  }
  const row = c.stmt("SELECT doc FROM memory_records_fts_vocab WHERE term = ?").get(stem) as
    | { doc: number }
    | undefined;
  if (c.dfCache.size >= DF_CACHE_MAX) c.dfCache.clear();
  c.dfCache.set(stem, { df: row?.doc ?? 0, at: now, corpus });
  return row?.doc ?? 0;
}

/** See `Storage.searchLexical`. */
export async function searchLexical(
  c: Connection,
  namespace: string,
  query: string,
  options: { limit: number },
): Promise<ScoredRecord[]> {
  await Promise.resolve();
  return searchLexicalSync(c, namespace, query, options);
}

/** Synchronous lexical search (the retrieval benchmark measures this). */
export function searchLexicalSync(
  c: Connection,
  namespace: string,
  query: string,
  options: { limit: number },
): ScoredRecord[] {
  return searchCandidatesSync(c, namespace, query, options).candidates.map((c) => ({
    record: c.record,
    score: c.bm25,
  }));
}

/** See `Storage.searchCandidates`. */
export async function searchCandidates(
  c: Connection,
  namespace: string,
  query: string,
  options: { limit: number },
): Promise<LexicalCandidates> {
  await Promise.resolve();
  return searchCandidatesSync(c, namespace, query, options);
}

/**
 * BM25 candidates with their per-column scores, and the query's terms with their IDF (what
 * the reranker needs). Rare terms are searched first, within a postings budget.
 */
export function searchCandidatesSync(
  c: Connection,
  namespace: string,
  query: string,
  options: { limit: number },
): LexicalCandidates {
  const tokens = queryTokens(query);
  let corpus = 0;
  if (tokens.length === 0) return { candidates: [], terms: [], corpus };
  let terms: string[];
  let weighted: WeightedTerm[] = [];
  let minId = 0;
  try {
    // max(id) is O(1) and close enough to the row count for IDF (deletes leave small gaps).
    const { top } = c.stmt("SELECT coalesce(max(id), 0) AS top FROM memory_records")
      .get() as { top: number };
    const totalDocs = top;
    corpus = totalDocs;
    if (totalDocs === 0) return { candidates: [], terms: [], corpus };
    const stats = termStats(c, tokens, { corpusSize: totalDocs });
    weighted = stats
      .filter((t) => t.stems.length > 0 && !t.token.includes(" "))
      .map((t) => ({ term: t.token, idf: Math.log((totalDocs + 1) / (t.df + 1)) }));
    const selected = new Set(selectQueryTerms(stats, { totalDocs }));
    const plan = planLexicalSearch(stats.filter((t) => selected.has(t.token)), { totalDocs });
    terms = plan.terms;
    if (plan.window < 1) {
      // The window is this namespace's newest rows, never the database's: a small or older
      // project must not vanish because another one is large.
      const rows = Math.ceil(totalDocs * plan.window);
      const edge = c.stmt(
        "SELECT id FROM memory_records WHERE namespace = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
      ).get(namespace, rows - 1) as { id: number } | undefined;
      minId = edge ? edge.id - 1 : 0;
    }
  } catch {
    terms = tokens.slice(0, 32);
  }
  if (terms.length === 0) return { candidates: [], terms: weighted, corpus };
  try {
    // Column weights: title, summary, facts, files, code parts. The title and the changed
    // paths name what a record is about; the summary says more, less precisely.
    const rows = c.stmt(
      `SELECT ${RECORD_COLUMNS_MR},
        bm25(memory_records_fts, ${BM25_WEIGHTS}) AS rank,
        bm25(memory_records_fts, 1, 0, 0, 0, 0) AS rank_title,
        bm25(memory_records_fts, 0, 1, 1, 0, 0) AS rank_summary,
        bm25(memory_records_fts, 0, 0, 0, 1, 0) AS rank_files
      FROM memory_records_fts JOIN memory_records mr ON mr.id = memory_records_fts.rowid
      WHERE memory_records_fts MATCH ? AND memory_records_fts.rowid > ? AND mr.namespace = ?
      ORDER BY rank, mr.record_id LIMIT ?`,
    ).all(buildFtsQuery(terms), minId, namespace, options.limit) as Row[];
    return {
      candidates: rows.map((row) => ({
        record: recordFromRow(row),
        bm25: -(row.rank as number),
        bm25Title: -(row.rank_title as number),
        bm25Summary: -(row.rank_summary as number),
        bm25Files: -(row.rank_files as number),
      })),
      terms: weighted,
      corpus,
      ...newestOf(c, namespace),
    };
  } catch {
    // The index is unreadable: what the user typed, as substrings (`snake_case` whole).
    const typed = [...new Set(query.split(/\s+/u).filter((t) => t !== ""))].slice(0, 32);
    const like = searchLike(c, namespace, typed, options.limit);
    return {
      candidates: like.map((h) => ({
        record: h.record,
        bm25: h.score,
        bm25Title: 0,
        bm25Summary: 0,
        bm25Files: 0,
      })),
      terms: weighted,
      corpus,
    };
  }
}

// The namespace's newest record's time (the reranker's "now"), one step of the
// (namespace, created_at) index.
function newestOf(c: Connection, namespace: string): { newest?: string } {
  const row = c.stmt("SELECT max(created_at) AS newest FROM memory_records WHERE namespace = ?")
    .get(namespace) as { newest: string | null } | undefined;
  return row?.newest ? { newest: row.newest } : {};
}

/** Availability over ranking: any token as a substring, newest first (the index is unreadable). */
export function searchLike(
  c: Connection,
  namespace: string,
  terms: readonly string[],
  limit: number,
): ScoredRecord[] {
  const picked = [...terms].sort((a, b) => b.length - a.length).slice(0, 8);
  const clauses = picked.map(() => "(title LIKE ? ESCAPE '\\' OR summary LIKE ? ESCAPE '\\')");
  const params = picked.flatMap((t) => {
    const pattern = `%${escapeLike(t)}%`;
    return [pattern, pattern];
  });
  const rows = c.db.prepare(
    `SELECT ${RECORD_COLUMNS} FROM memory_records WHERE namespace = ? AND (${
      clauses.join(" OR ")
    }) ORDER BY created_at DESC, record_id DESC LIMIT ?`,
  ).all(namespace, ...params, limit) as Row[];
  return rows.map((row, i) => ({ record: recordFromRow(row), score: 1 / (i + 1) }));
}
