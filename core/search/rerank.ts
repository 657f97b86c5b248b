/**
 * The second stage of retrieval: BM25 finds candidates, this module orders them.
 *
 * BM25 alone over-rewards a record that repeats one query word and ignores what a developer's
 * prompt and the record that answers it usually share: the component (`subsystem:` prefix, the
 * files it touched), the exact identifiers, most of the prompt's rare words rather than one of
 * them. Each candidate gets a few such general features, and a linear model, trained on one
 * repository of the real retrieval set and checked on the other (`collector/tooling/quality/`),
 * weighs them. The same score decides whether anything is injected at all (the no-answer gate).
 *
 * @module
 */
import type { MemoryRecord } from "../schemas/mod.ts";
import { isStopWord, stem, textWords, titlePrefix } from "./code_text.ts";
import { recordSpaceColumn } from "./record_space.ts";
import type { TermSpace } from "./term_space.ts";
import weightsData from "./data/rerank_weights.json" with { type: "json" };

/** A lexical candidate with its BM25 score, whole and per column (higher is better, ≥ 0). */
export interface LexicalCandidate {
  /** The record. */
  record: MemoryRecord;
  /** BM25 over all indexed columns, with the column weights of the search. */
  bm25: number;
  /** BM25 of the title alone. */
  bm25Title: number;
  /** BM25 of the summary (and facts) alone. */
  bm25Summary: number;
  /** BM25 of the changed paths alone. */
  bm25Files: number;
}

/** What a lexical search hands the reranker. */
export interface LexicalCandidates {
  /** Candidates in BM25 order. */
  candidates: LexicalCandidate[];
  /** The query's terms with their IDF. */
  terms: WeightedTerm[];
  /** Records in the store (about: the highest row id), which the IDFs were computed over. */
  corpus: number;
  /**
   * `created_at` of the namespace's newest record: the project's own "now", which the time
   * columns measure age from (absent: the newest candidate's).
   */
  newest?: string;
}

/**
 * Below this many records the gate stays open: its statistics (how rare the matched words are)
 * mean nothing in a store of a few dozen records, and a new user should see memory at work.
 */
export const GATE_MIN_CORPUS = 500;

/** A query term with its inverse document frequency in the store. */
export interface WeightedTerm {
  /** The term (a word or identifier part; phrases are not terms). */
  term: string;
  /** `ln(N / df)`, 0 for a term the store has never seen. */
  idf: number;
}

/** Names of the features, in the order of the weights. */
export const RERANK_FEATURES: readonly string[] = [
  "bm25",
  "bm25_title",
  "bm25_summary",
  "bm25_files",
  "inverse_rank",
  "same_prefix",
  "title_coverage",
  "files_coverage",
  "summary_coverage",
  "identifiers",
  "log_length",
  "log_files",
  "matched_share",
  "best_title_idf",
  "coverage",
  "matched_idf",
  "prefix_in_paths",
  "title_precision",
  "term_origin",
  "file_neighbours",
  "term_space",
  "record_age",
  "newness_rank",
];

/**
 * The column of the namespace's term space (`record_space.ts`): how close a candidate's title is
 * to the prompt in the project's own latent topics, relative to the closest candidate. Without a
 * space (a young namespace, or one still training) it is {@linkcode TERM_SPACE_NEUTRAL} for
 * every candidate, which moves no ranking; the gate gives it no weight, so whether a namespace
 * has a space never changes what the gate lets through.
 */
export const TERM_SPACE_FEATURE: number = RERANK_FEATURES.indexOf("term_space");

/** The `term_space` column's value for every candidate when there is no space. */
export const TERM_SPACE_NEUTRAL = 0;

/**
 * The columns the no-answer gate gives no weight: whether a prompt has an answer in memory does
 * not depend on whether the namespace has a term space yet, nor on how old its records are.
 */
export const GATE_IGNORED_FEATURES: readonly number[] = [
  TERM_SPACE_FEATURE,
  RERANK_FEATURES.indexOf("record_age"),
  RERANK_FEATURES.indexOf("newness_rank"),
];

/** The trained model: one weight per feature, and the no-answer gate. */
export interface RerankModel {
  /** Ranking weights, in {@linkcode RERANK_FEATURES} order. */
  weights: number[];
  /**
   * The gate's weights over the best candidate's features (same order, then a bias): a
   * logistic score of "this prompt has an answer in memory".
   */
  gateWeights: number[];
  /**
   * Below this gate score nothing is injected. A prompt about nothing in memory ("run the tests
   * again", a question about another stack) still has BM25 hits, but only on common words: the
   * rare words that carry a real question's meaning are missing from the best candidate.
   */
  gate: number;
}

/** The model shipped with kiro-learn (`data/rerank_weights.json`, written by the trainer). */
export const RERANK_MODEL: RerankModel = weightsData;

/** A candidate with its learned score. */
export interface RankedCandidate extends LexicalCandidate {
  /** The model's score (higher is better). */
  score: number;
  /** The features it was computed from (for the trainer and debugging). */
  features: number[];
}

function stemSet(text: string): Set<string> {
  return new Set(textWords(text).map(stem));
}

/**
 * The identifiers and paths of a prompt (`flow_del`, `lib/netdev-dpdk.c`, `getUserById`,
 * `foo()` as `foo` when it has one of those shapes), lowercased.
 */
export function promptIdentifiers(query: string): string[] {
  return query
    .split(/\s+/)
    .map((s) => s.replace(/^[("'`[]+|[()"'`.,:;!?\]]+$/g, ""))
    .filter((s) => /[_]|[a-z][A-Z]|\w[./-]\w/.test(s))
    .map((s) => s.toLowerCase());
}

/** Options of {@linkcode rerankFeatures}. */
export interface RerankFeatureOptions {
  /** The query's terms with their IDF. */
  terms: readonly WeightedTerm[];
  /** The namespace's term space, or none (the `term_space` column is then neutral). */
  space?: TermSpace | null;
  /**
   * `created_at` of the namespace's newest record ({@linkcode LexicalCandidates.newest}); absent,
   * the newest candidate's.
   */
  newest?: string;
}

/** The features of each candidate, in the order of {@linkcode RERANK_FEATURES}. */
export function rerankFeatures(
  query: string,
  candidates: readonly LexicalCandidate[],
  options: RerankFeatureOptions,
): number[][] {
  const terms = options.terms.filter((t) => !isStopWord(t.term));
  const identifiers = promptIdentifiers(query);
  const prefix = titlePrefix(query);
  // The prefix's components (`ovn-northd, tests` → ovn-northd, tests), long enough to mean a path.
  const prefixParts = (prefix ?? "").split(/[\s,]+/).filter((p) => p.length >= 3);
  const max = (pick: (c: LexicalCandidate) => number) => Math.max(0, ...candidates.map(pick)) || 1;
  const maxAll = max((c) => c.bm25);
  const maxTitle = max((c) => c.bm25Title);
  const maxSummary = max((c) => c.bm25Summary);
  const maxFiles = max((c) => c.bm25Files);
  const totalIdf = terms.reduce((sum, t) => sum + t.idf, 0);
  const queryStems = stemSet(query);
  // Each prompt term's stem, once per prompt rather than once per candidate.
  const stems = terms.map((t) => stem(t.term));
  const space = options.space
    ? recordSpaceColumn(query, { space: options.space, records: candidates.map((c) => c.record) })
    : null;
  const words = candidates.map(({ record: r }) => ({
    title: stemSet(r.title),
    files: stemSet(r.files_touched.join(" ")),
    summary: stemSet(`${r.summary} ${r.facts.join(" ")}`),
  }));
  const origin = termOrigin(terms, { stems, candidates, words });
  const neighbours = fileNeighbours(candidates, maxAll);
  const { age, newness } = timeColumns(candidates, options.newest);
  return candidates.map((c, rank) => {
    const r = c.record;
    const { title, files, summary } = words[rank];
    let inTitle = 0, inFiles = 0, inSummary = 0, inAny = 0, matched = 0, bestTitleIdf = 0;
    for (const [j, t] of terms.entries()) {
      const s = stems[j];
      const [a, b, d] = [title.has(s), files.has(s), summary.has(s)];
      if (a) {
        inTitle += t.idf;
        bestTitleIdf = Math.max(bestTitleIdf, t.idf);
      }
      if (b) inFiles += t.idf;
      if (d) inSummary += t.idf;
      if (a || b || d) {
        matched++;
        inAny += t.idf;
      }
    }
    const text = `${r.title}\n${r.summary}\n${r.files_touched.join(" ")}`.toLowerCase();
    // `netdev-dpdk: fix …` asks about lib/netdev-dpdk.c: the prompt's component among the paths.
    const prefixInPaths = prefixParts.length > 0 &&
        r.files_touched.some((f) => {
          const path = f.toLowerCase();
          return prefixParts.some((p) => path.includes(p));
        })
      ? 1
      : 0;
    const identifierHits = identifiers.filter((id) => text.includes(id)).length;
    return [
      c.bm25 / maxAll,
      c.bm25Title / maxTitle,
      c.bm25Summary / maxSummary,
      c.bm25Files / maxFiles,
      1 / (rank + 1),
      prefix !== null && titlePrefix(r.title) === prefix ? 1 : 0,
      totalIdf > 0 ? inTitle / totalIdf : 0,
      totalIdf > 0 ? inFiles / totalIdf : 0,
      totalIdf > 0 ? inSummary / totalIdf : 0,
      Math.min(identifierHits, 3) / 3,
      Math.log1p(r.summary.length) / 10,
      Math.log1p(r.files_touched.length) / 4,
      terms.length > 0 ? matched / terms.length : 0,
      bestTitleIdf / 10,
      totalIdf > 0 ? inAny / totalIdf : 0,
      inAny / 10,
      prefixInPaths,
      titlePrecision(r.title, queryStems),
      origin[rank],
      neighbours[rank],
      space?.[rank] ?? TERM_SPACE_NEUTRAL,
      age[rank],
      newness[rank],
    ];
  });
}

// A candidate's words, stemmed, per field.
interface CandidateWords {
  title: Set<string>;
  files: Set<string>;
  summary: Set<string>;
}

// Where each of the prompt's words entered the project. A problem with something is most often
// the doing of the change that brought it in, which is the oldest of the records that mention
// it; later records that mention it tweak, fix or use it. Per prompt term found in two or more
// candidates, the candidates that hold it are ordered oldest first and the k-th gets idf / k
// (equal times share the better place); the column is the sum over terms, divided by those
// terms' total IDF (0–1). Most of its measured gain on the real set comes from that set's pool
// holding records made after each fix (which it ranks down); scored as of the fix it is about
// neutral (collector/tooling/quality/README.md, "Records made after the fix").
function termOrigin(
  terms: readonly WeightedTerm[],
  options: {
    stems: readonly string[];
    candidates: readonly LexicalCandidate[];
    words: readonly CandidateWords[];
  },
): number[] {
  const { stems, candidates, words } = options;
  const out = new Array<number>(candidates.length).fill(0);
  const time = candidates.map((c) => {
    const t = Date.parse(c.record.created_at);
    return Number.isFinite(t) ? t : Number.MAX_SAFE_INTEGER;
  });
  const seen = new Set<string>();
  let total = 0;
  for (const [j, t] of terms.entries()) {
    const s = stems[j];
    if (t.idf <= 0 || seen.has(s)) continue;
    seen.add(s);
    const holders: number[] = [];
    words.forEach((w, i) => {
      if (w.title.has(s) || w.files.has(s) || w.summary.has(s)) holders.push(i);
    });
    // Held by one candidate only, a term says nothing about order (coverage already counts it).
    if (holders.length < 2) continue;
    holders.sort((a, b) => time[a] - time[b]);
    total += t.idf;
    // Records of the same instant (a series applied at once) share their place.
    let place = 1;
    holders.forEach((i, k) => {
      if (k > 0 && time[i] > time[holders[k - 1]]) place = k + 1;
      out[i] += t.idf / place;
    });
  }
  return total > 0 ? out.map((v) => v / total) : out;
}

// Support from the candidates that changed the same files: the highest normalised BM25 among
// the other candidates sharing a changed path with this one. A record in the component the
// prompt's best matches are about is a likelier answer than an isolated one (the cluster
// hypothesis, with changed paths as the clusters). Linear time: per path, its two best holders.
// Its measured gain came from candidates made after the fix (same README section).
function fileNeighbours(candidates: readonly LexicalCandidate[], maxAll: number): number[] {
  const best = new Map<string, { first: number; at: number; second: number }>();
  candidates.forEach((c, i) => {
    const v = c.bm25 / maxAll;
    for (const path of new Set(c.record.files_touched)) {
      const b = best.get(path);
      if (b === undefined) best.set(path, { first: v, at: i, second: 0 });
      else if (v > b.first) best.set(path, { first: v, at: i, second: b.first });
      else if (v > b.second) b.second = v;
    }
  });
  return candidates.map((c, i) => {
    let support = 0;
    for (const path of c.record.files_touched) {
      const b = best.get(path)!;
      support = Math.max(support, b.at === i ? b.second : b.first);
    }
    return support;
  });
}

// How long before the project's "now" each candidate was made, and its place among the
// candidates from newest to oldest. A bug reported now is most often in code changed lately:
// scored as of each fix on the real set, these two columns gain about +0.04 recall@5 on the
// held-out repository in both directions (collector/tooling/quality/README.md). "Now" is the
// namespace's newest record, not the clock: the age of a project's memory is counted in its own
// activity, so a project left alone for a month ranks as it did when it was left, and a replayed
// history ranks as it did at the time. `record_age` is log days / 10 (0 for the newest);
// `newness_rank` is 1 / place (equal times share the better place; an undated record is last).
function timeColumns(
  candidates: readonly LexicalCandidate[],
  newest: string | undefined,
): { age: number[]; newness: number[] } {
  const time = candidates.map((c) => Date.parse(c.record.created_at));
  const dated = time.filter(Number.isFinite);
  const reference = newest !== undefined && Number.isFinite(Date.parse(newest))
    ? Date.parse(newest)
    : Math.max(...dated);
  const age = time.map((t) =>
    Number.isFinite(t) ? Math.log1p(Math.max(0, reference - t) / DAY_MS) / 10 : 1
  );
  const order = time.map((t, i) => ({ t: Number.isFinite(t) ? t : -Infinity, i }))
    .sort((a, b) => b.t - a.t);
  const newness = new Array<number>(candidates.length).fill(0);
  let place = 1;
  order.forEach(({ t, i }, k) => {
    if (k > 0 && t < order[k - 1].t) place = k + 1;
    newness[i] = 1 / place;
  });
  return { age, newness };
}

const DAY_MS = 86_400_000;

/** The gate's score (0–1) for a ranking's best candidate: does the prompt have an answer? */
export function gateScore(best: readonly number[], model: RerankModel): number {
  const bias = model.gateWeights[best.length] ?? 0;
  return 1 / (1 + Math.exp(-(linearScore(best, model.gateWeights) + bias)));
}

// How much of a record's title the prompt speaks about: a short title all of whose words are in
// the prompt is a closer answer than a long one that shares a word.
function titlePrecision(title: string, queryStems: ReadonlySet<string>): number {
  const words = textWords(title).filter((w) => !isStopWord(w)).map(stem);
  if (words.length === 0) return 0;
  return words.filter((w) => queryStems.has(w)).length / words.length;
}

/** The dot product of features and weights. */
export function linearScore(features: readonly number[], weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < features.length; i++) sum += features[i] * (weights[i] ?? 0);
  return sum;
}

/**
 * Orders candidates by the model's score, best first (ties: BM25 order). Candidates come in
 * BM25 order; the order matters (a feature is the BM25 rank).
 */
export function rerank(
  query: string,
  candidates: readonly LexicalCandidate[],
  options: RerankFeatureOptions & { model?: RerankModel },
): RankedCandidate[] {
  const model = options.model ?? RERANK_MODEL;
  const features = rerankFeatures(query, candidates, options);
  return candidates
    .map((c, i) => ({
      ...c,
      features: features[i],
      score: linearScore(features[i], model.weights),
      i,
    }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ i: _i, ...rest }) => rest);
}
