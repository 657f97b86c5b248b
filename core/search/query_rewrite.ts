/**
 * The seed-003 query rewrite: tokenize, dedupe, cap by IDF, quote, OR.
 *
 * The pure half lives here; the database supplies the stems and document frequencies, computed
 * with the index's own tokenizer so IDF is looked up on the same stemmed terms the index holds.
 *
 * The tokens come from `code_text.ts` (`queryTokens`), which knows identifiers and paths.
 *
 * @module
 */
import { isStopWord } from "./code_text.ts";

/** Most terms sent to FTS5 (rare terms survive, common ones are dropped first). */
export const MAX_QUERY_TERMS = 32;

/**
 * Most postings (matching rows, summed over the chosen terms) one lexical search ranks. BM25
 * costs about a microsecond per matching row, so this bounds a search to a few milliseconds
 * whatever the corpus size.
 */
export const MAX_RANKED_POSTINGS = 4_000;

/** A query token with what the index knows about it. */
export interface TermStats {
  /** The token as typed. */
  token: string;
  /** Its stems under the index's tokenizer (empty for pure punctuation). */
  stems: string[];
  /** Smallest document frequency among its stems (0 when unseen). */
  df: number;
}

/**
 * Picks the terms to search: tokens with at least one indexable stem, stop words dropped when
 * anything else remains, and the rarest `max` kept (stable on ties) when there are more.
 */
export function selectQueryTerms(
  terms: readonly TermStats[],
  options: { totalDocs: number; max?: number },
): string[] {
  const max = options.max ?? MAX_QUERY_TERMS;
  const indexable = terms.filter((t) => t.stems.length > 0);
  const meaningful = indexable.filter((t) => !isStopWord(t.token.toLowerCase()));
  const pool = meaningful.length > 0 ? meaningful : indexable;
  if (pool.length <= max) return pool.map((t) => t.token);
  const n = Math.max(options.totalDocs, 1);
  const idf = (t: TermStats) => Math.log(n / Math.max(t.df, 1));
  return pool
    .map((t, index) => ({ t, index, idf: idf(t) }))
    .sort((a, b) => b.idf - a.idf || a.index - b.index)
    .slice(0, max)
    .sort((a, b) => a.index - b.index)
    .map((x) => x.t.token);
}

/** How a lexical search will run: which terms, and how far back in insertion order. */
export interface LexicalPlan {
  /** Terms to OR together. */
  terms: string[];
  /** Fraction of the newest rows to search (1 = all). */
  window: number;
}

/**
 * Bounds the work of a search: keeps the rarest terms while their postings fit
 * `maxPostings` (always at least the rarest one), and when even that is too common, searches
 * only the newest rows, in proportion. Rare terms decide BM25 rankings anyway; common ones mostly
 * add rows to rank.
 */
export function planLexicalSearch(
  terms: readonly TermStats[],
  options: { totalDocs: number; maxPostings?: number },
): LexicalPlan {
  const budget = options.maxPostings ?? MAX_RANKED_POSTINGS;
  const byRarity = terms
    .map((t, index) => ({ t, index }))
    .sort((a, b) => a.t.df - b.t.df || a.index - b.index);
  const chosen: typeof byRarity = [];
  let postings = 0;
  for (const item of byRarity) {
    if (chosen.length > 0 && postings + item.t.df > budget) break;
    chosen.push(item);
    postings += item.t.df;
  }
  chosen.sort((a, b) => a.index - b.index);
  const window = postings > budget ? Math.max(budget / postings, 0.001) : 1;
  return { terms: chosen.map((c) => c.t.token), window };
}

/** Quotes a token as an FTS5 phrase, so no character in it acts as an operator. */
export function quoteFtsPhrase(token: string): string {
  return `"${token.replaceAll('"', '""')}"`;
}

/** Joins quoted tokens with OR; empty input gives an empty string (search nothing). */
export function buildFtsQuery(tokens: readonly string[]): string {
  return tokens.map(quoteFtsPhrase).join(" OR ");
}

/** Escapes `\`, `%` and `_` for a `LIKE ... ESCAPE '\'` pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
