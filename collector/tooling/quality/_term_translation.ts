/**
 * Title → body term associations learned from a namespace's own records: which summary and path
 * terms a record tends to have when its title has a given term ("crash" in the title ↔
 * "null", "deref", "segfault" in the summary; "northd" ↔ `northd/en-lflow.c`). A prompt reads
 * like a title, so its terms can be "translated" into the words a record's body would use.
 *
 * The association is positive pointwise mutual information over records, keeping only pairs seen
 * together in at least `minPair` records (one co-occurrence is chance) and the strongest `topK`
 * per title term (bounded size and query cost).
 *
 * @module
 */
import { type TermSpaceDoc, termTokens } from "@kiro-learn/core/search";

/** A trained association table. */
export interface TermTranslation {
  /** What titles were translated into. */
  target: TranslationTarget;
  /** Title term → (body term → PPMI), strongest first. */
  table: Map<string, Map<string, number>>;
  /** Title term → `ln(N / df)` over record titles. */
  idf: Map<string, number>;
}

/** Options of {@linkcode trainTermTranslation}. */
export interface TrainTermTranslationOptions {
  /** Least records a pair must share (default 2). */
  minPair?: number;
  /** Most associations kept per title term (default 64). */
  topK?: number;
  /** Terms in more than this share of records are ignored on either side (default 0.3). */
  maxDfShare?: number;
  /**
   * What a title translates into: `body` (default) the summary's and paths' terms, `files` the
   * changed paths whole (`lib/netdev.c`): which files a record with these title words touches.
   */
  target?: TranslationTarget;
}

/** The record side of a translation: body terms, or whole changed paths. */
export type TranslationTarget = "body" | "files";

function bodyTerms(doc: TermSpaceDoc, target: TranslationTarget): Set<string> {
  if (target === "files") return new Set(doc.files.map((f) => f.toLowerCase()));
  return new Set([...termTokens(doc.summary), ...termTokens(doc.files.join(" "))]);
}

/** Learns the title → body associations of a namespace's records. */
export function trainTermTranslation(
  docs: readonly TermSpaceDoc[],
  options: TrainTermTranslationOptions = {},
): TermTranslation {
  const minPair = options.minPair ?? 2;
  const topK = options.topK ?? 64;
  const maxDf = (options.maxDfShare ?? 0.3) * docs.length;
  const titleDf = new Map<string, number>();
  const bodyDf = new Map<string, number>();
  const target = options.target ?? "body";
  const bags = docs.map((d) => ({
    title: new Set(termTokens(d.title)),
    body: bodyTerms(d, target),
  }));
  for (const { title, body } of bags) {
    for (const t of title) titleDf.set(t, (titleDf.get(t) ?? 0) + 1);
    for (const s of body) bodyDf.set(s, (bodyDf.get(s) ?? 0) + 1);
  }
  const keep = (df: Map<string, number>, t: string) => {
    const n = df.get(t) ?? 0;
    return n >= minPair && n <= maxDf;
  };
  const pairs = new Map<string, Map<string, number>>();
  for (const { title, body } of bags) {
    const bodyKept = [...body].filter((s) => keep(bodyDf, s));
    for (const t of title) {
      if (!keep(titleDf, t)) continue;
      const row = pairs.get(t) ?? pairs.set(t, new Map()).get(t)!;
      for (const s of bodyKept) row.set(s, (row.get(s) ?? 0) + 1);
    }
  }
  const table = new Map<string, Map<string, number>>();
  for (const [t, row] of pairs) {
    const ti = titleDf.get(t)!;
    const scored: [string, number][] = [];
    for (const [s, n] of row) {
      if (n < minPair) continue;
      const pmi = Math.log((n * docs.length) / (ti * bodyDf.get(s)!));
      if (pmi > 0) scored.push([s, pmi]);
    }
    scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (scored.length > 0) table.set(t, new Map(scored.slice(0, topK)));
  }
  const idf = new Map([...titleDf].map(([t, n]) => [t, Math.log(docs.length / n)]));
  return { target, table, idf };
}

/**
 * How well a prompt's terms translate into a record's summary and paths: for each prompt term
 * with associations, the strongest association it has with one of the record's body terms,
 * IDF-weighted and averaged over the prompt's known terms (0 when none is known). With
 * `skipIdentity`, a term's association with itself does not count (the lexical features
 * already see shared words; this one is about the words that differ). With `sum`, all of a
 * term's associations found in the record add up instead of only the strongest.
 */
export function translationScore(
  model: TermTranslation,
  query: string,
  options: { doc: TermSpaceDoc; skipIdentity?: boolean; sum?: boolean },
): number {
  const body = bodyTerms(options.doc, model.target);
  let total = 0, weight = 0;
  for (const t of new Set(termTokens(query))) {
    const row = model.table.get(t);
    if (row === undefined) continue;
    const idf = model.idf.get(t) ?? 0;
    let score = 0;
    for (const [s, v] of row) {
      if ((options.skipIdentity && s === t) || !body.has(s)) continue;
      if (options.sum) score += v;
      else {
        score = v; // rows are sorted, strongest first
        break;
      }
    }
    total += idf * score;
    weight += idf;
  }
  return weight > 0 ? total / weight : 0;
}
