/**
 * New feature families for the reranker, each as extra columns over the shipped features. The
 * weights are trained exactly as `train_rerank.ts` trains them, on one repository of the real set
 * with the other held out, both ways, and with `--git=DIR,…` also scored on other projects'
 * `Fixes:` histories (the models trained on ovs and on ovn; `hist` is those histories pooled).
 * Every cell is paired against the baseline: queries whose top 5 gained / lost the answer and a
 * paired bootstrap 95% interval of the recall@5 difference.
 *
 * The baseline is the shipped features without the two columns this experiment chose
 * (`term_origin`, `file_neighbours`, named as columns here and computed by `core/search/rerank.ts`),
 * so the table reproduces the choice with the shipped code. With `--on-shipped` the baseline is
 * every shipped column and the families' columns come on top. A variant is columns joined by `+`;
 * `-name` in it leaves the base column `name` out instead (an ablation). `--baseline=VARIANT`
 * (same syntax: `term_origin+file_neighbours`, `-file_neighbours+fn_asked`) pairs every row
 * against that variant instead of the base columns alone.
 *
 * Some families (`store`, `fileorigin`, `churn`, `novelty`, `expansion`, `identifiers`, `cited`)
 * read the whole namespace, not only the candidates: the set's records and every history's pool.
 *
 * When was the prompt asked? Each query's `fixed_at`, its fixing commit's date: the histories'
 * come with them (`fixesQueries`), the set's from `--fix-clones=DIR,…` (clones of its
 * repositories, `git log` reads the fixing commits' dates); without those the set's queries are
 * undated. Two protocols use it. The standard one keeps every record as a candidate (the prompt is
 * asked at the end of the window), and only the `…_asked` columns leave out the records made after
 * the fix. `--as-of-fix` scores each prompt against the records made by its fix's date (the memory
 * when the developer asked; it needs every query dated), and `recency` counts days from then.
 *
 * ```sh
 * deno run -A collector/tooling/quality/feature_experiment.ts --data=DIR \
 *   [--families=sdm,origin] [--variants=od_title,term_origin+file_neighbours] \
 *   [--git=/tmp/qh/dpdk,/tmp/qh/xen] [--on-shipped --variants=so_rank,-log_files] \
 *   [--baseline=term_origin+file_neighbours | --baseline=-file_neighbours+fn_asked] \
 *   [--fix-clones=/tmp/ovs,/tmp/ovn [--as-of-fix]]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import {
  isStopWord,
  linearScore,
  promptIdentifiers,
  RERANK_FEATURES,
  rerankFeatures,
  splitWord,
  stem,
  textWords,
  titlePrefix,
  type WeightedTerm,
} from "@kiro-learn/core/search";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { addFixDates, loadRealSet } from "./real_set.ts";
import { collect, type Sample, train, TRAIN_OPTIONS, trainSpaces } from "./train_rerank.ts";
import {
  type Column,
  evaluate,
  gitSamples,
  historyName,
  paired,
} from "./rerank_model_experiment.ts";

/** The columns this experiment shipped: in the features, left out of the baseline. */
const SHIPPED = ["term_origin", "file_neighbours"];

const WORD = /[\p{L}\p{N}]+/gu;

/** A text's word units (identifier parts split, stop words out, lowercased), unstemmed. */
function units(text: string): string[] {
  const out: string[] = [];
  for (const w of text.slice(0, 64 * 1024).match(WORD) ?? []) {
    const parts = splitWord(w);
    for (const p of parts.length > 0 ? parts : [w.toLowerCase()]) {
      if (!isStopWord(p)) out.push(p);
    }
  }
  return out;
}

/** A text's words in order: identifiers split, stop words out, lowercased, stemmed. */
function sequence(text: string): string[] {
  return units(text).map(stem);
}

interface Doc {
  title: string[];
  summary: string[];
  files: string[][];
}

const docs = new Map<string, Doc>();
function docOf(r: MemoryRecord): Doc {
  let d = docs.get(r.record_id);
  if (d === undefined) {
    d = {
      title: sequence(r.title),
      summary: sequence(`${r.summary} ${r.facts.join(" ")}`),
      files: r.files_touched.map((f) => sequence(f.replace(/\.[a-z0-9]+$/i, ""))),
    };
    docs.set(r.record_id, d);
  }
  return d;
}

/** Collection statistics of a namespace (for query likelihood). */
interface Collection {
  cf: Map<string, number>;
  total: number;
  docs: number;
  /** The newest record's time. */
  newest: number;
}

/** What a family reads besides its sample. */
interface Context {
  /** Per namespace, its collection statistics. */
  collections: ReadonlyMap<string, Collection>;
  /** `--as-of-fix`: the prompt is asked at its `fixed_at`, not at the end of the window. */
  asOf: boolean;
}

/** One query's columns: a row per candidate. */
type Family = (s: Sample, context: Context) => number[][];

function records(s: Sample): MemoryRecord[] {
  return s.candidates!.map((c) => c.record);
}

function idfOf(s: Sample): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of s.terms!) {
    if (isStopWord(t.term)) continue;
    const k = stem(t.term);
    m.set(k, Math.max(m.get(k) ?? 0, t.idf));
  }
  return m;
}

function queryPairs(s: Sample, idf: Map<string, number>): { a: string; b: string; w: number }[] {
  const q = sequence(s.query.query);
  const seen = new Set<string>();
  const out = [];
  for (let i = 0; i + 1 < q.length; i++) {
    const [a, b] = [q[i], q[i + 1]];
    if (a === b || seen.has(`${a} ${b}`)) continue;
    seen.add(`${a} ${b}`);
    out.push({ a, b, w: (idf.get(a) ?? 0) + (idf.get(b) ?? 0) });
  }
  return out;
}

function adjacent(d: readonly string[]): Set<string> {
  const s = new Set<string>();
  for (let i = 0; i + 1 < d.length; i++) s.add(`${d[i]} ${d[i + 1]}`);
  return s;
}

function withinWindow(d: readonly string[], a: string, b: string, window: number): boolean {
  let lastA = -1e9, lastB = -1e9;
  for (let i = 0; i < d.length; i++) {
    if (d[i] === a) {
      lastA = i;
      if (i - lastB < window) return true;
    }
    if (d[i] === b) {
      lastB = i;
      if (i - lastA < window) return true;
    }
  }
  return false;
}

// Sequential dependence: the prompt's adjacent word pairs (IDF-weighted) found adjacent, in order,
// in the title / summary / a path / anywhere; unordered within 8 words in the title / anywhere.
const sdm: Family = (s) => {
  const pairs = queryPairs(s, idfOf(s));
  const total = pairs.reduce((a, p) => a + p.w, 0);
  return records(s).map((r) => {
    if (total <= 0) return [0, 0, 0, 0, 0, 0];
    const d = docOf(r);
    const [t, m] = [adjacent(d.title), adjacent(d.summary)];
    const f = new Set(d.files.flatMap((x) => [...adjacent(x)]));
    const both = [...d.title, "\u0000", ...d.summary];
    const sums = [0, 0, 0, 0, 0, 0];
    for (const p of pairs) {
      const k = `${p.a} ${p.b}`;
      const hits = [
        t.has(k),
        m.has(k),
        f.has(k),
        t.has(k) || m.has(k) || f.has(k),
        withinWindow(d.title, p.a, p.b, 8),
        withinWindow(both, p.a, p.b, 8),
      ];
      hits.forEach((h, i) => sums[i] += h ? p.w : 0);
    }
    return sums.map((v) => v / total);
  });
};

// Query likelihood with Dirichlet smoothing (μ 50 and 300): the namespace's collection
// frequencies, or frequencies estimated from the search's IDFs; and the title alone.
const ql: Family = (s, { collections }) => {
  const c = collections.get(s.query.namespace)!;
  const q = [...new Set(sequence(s.query.query))];
  const idf = idfOf(s);
  const rows = records(s).map((r) => {
    const d = docOf(r);
    const all = [...d.title, ...d.summary, ...d.files.flat()];
    const count = (ws: readonly string[]) => {
      const m = new Map<string, number>();
      for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1);
      return m;
    };
    const [tf, ttf] = [count(all), count(d.title)];
    return [50, 300].flatMap((mu) => {
      let cf = 0, df = 0, title = 0;
      for (const w of q) {
        const pc = ((c.cf.get(w) ?? 0) + 0.5) / (c.total + 1);
        const i = idf.get(w);
        const pd = (i === undefined ? 0.5 / c.docs : Math.exp(-i)) * 1.5 / (c.total / c.docs);
        cf += Math.log((tf.get(w) ?? 0) + mu * pc) - Math.log(all.length + mu);
        df += Math.log((tf.get(w) ?? 0) + mu * pd) - Math.log(all.length + mu);
        title += Math.log((ttf.get(w) ?? 0) + mu / 10 * pc) - Math.log(d.title.length + mu / 10);
      }
      return [cf, df, title].map((v) => v / Math.max(q.length, 1));
    });
  });
  // Relative to the query's best, clipped (a shift per query moves no ranking).
  for (let j = 0; j < (rows[0]?.length ?? 0); j++) {
    const max = Math.max(...rows.map((r) => r[j]));
    for (const r of rows) r[j] = Math.max(r[j] - max, -5) / 5 + 1;
  }
  return rows;
};

// The first words of the title after its `subsystem:` prefix against the prompt's, both ways,
// with and without the first word (usually the verb).
const head: Family = (s) => {
  const rest = (title: string) =>
    titlePrefix(title) === null ? title : title.slice(title.indexOf(":") + 1);
  const query = new Set(sequence(s.query.query));
  const qHead = sequence(rest(s.query.query)).slice(0, 4);
  return records(s).map((r) => {
    const rHead = sequence(rest(r.title)).slice(0, 4);
    const title = new Set(docOf(r).title);
    const share = (ws: string[], set: Set<string>) =>
      ws.length ? ws.filter((w) => set.has(w)).length / ws.length : 0;
    return [
      share(rHead, query),
      share(qHead, title),
      share(rHead.slice(1), query),
      share(qHead.slice(1), title),
    ];
  });
};

// The prompt's words (IDF share) among the changed paths' base names, and among their folders.
const paths: Family = (s) => {
  const idf = idfOf(s);
  const q = [...new Set(sequence(s.query.query))];
  const total = q.reduce((a, w) => a + (idf.get(w) ?? 0), 0) || 1;
  return records(s).map((r) => {
    const base = new Set<string>(), dir = new Set<string>();
    for (const f of r.files_touched) {
      const parts = f.split("/");
      for (const w of sequence(parts.pop()!.replace(/\.[a-z0-9]+$/i, ""))) base.add(w);
      for (const w of sequence(parts.join(" "))) dir.add(w);
    }
    const sum = (set: Set<string>) => q.reduce((a, w) => a + (set.has(w) ? idf.get(w) ?? 0 : 0), 0);
    return [sum(base) / total, sum(dir) / total];
  });
};

// Support from other candidates (normalised BM25 = the first feature): sharing the same
// prefix within a week; how many share a path; the best sharing a path no more than a fifth of
// the candidates touch; the sum over those sharing a path.
const neighbours: Family = (s) => {
  const rs = records(s);
  const n = rs.length;
  const bm25 = s.features.map((f) => f[0]);
  const prefixes = rs.map((r) => titlePrefix(r.title));
  const times = rs.map((r) => Date.parse(r.created_at));
  const files = rs.map((r) => new Set(r.files_touched));
  const holders = new Map<string, number>();
  for (const f of files) for (const x of f) holders.set(x, (holders.get(x) ?? 0) + 1);
  const rare = (x: string) => (holders.get(x) ?? 0) <= Math.max(3, n / 5);
  return rs.map((_, i) => {
    let time = 0, count = 0, rareMax = 0, sum = 0;
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const shared = [...files[j]].filter((f) => files[i].has(f));
      if (shared.length > 0) {
        count++;
        sum += bm25[j];
      }
      if (shared.some(rare)) rareMax = Math.max(rareMax, bm25[j]);
      if (
        prefixes[i] !== null && prefixes[i] === prefixes[j] &&
        Math.abs(times[i] - times[j]) < 7 * 86400e3
      ) time = Math.max(time, bm25[j]);
    }
    return [time, Math.min(count, 10) / 10, rareMax, Math.min(sum, 5) / 5];
  });
};

// The smallest span of title + summary holding every matched prompt word (matched / span), and
// the IDF share of the prompt's words in the summary's first 30 words.
const span: Family = (s) => {
  const idf = idfOf(s);
  const q = new Set(sequence(s.query.query));
  const total = [...q].reduce((a, w) => a + (idf.get(w) ?? 0), 0) || 1;
  return records(s).map((r) => {
    const d = docOf(r);
    const both = [...d.title, ...d.summary];
    const matched = new Set(both.filter((w) => q.has(w)));
    let proximity = 0;
    if (matched.size >= 2) {
      const count = new Map<string, number>();
      let have = 0, best = Infinity, lo = 0;
      for (let hi = 0; hi < both.length; hi++) {
        if (matched.has(both[hi])) {
          count.set(both[hi], (count.get(both[hi]) ?? 0) + 1);
          if (count.get(both[hi]) === 1) have++;
        }
        for (; have === matched.size; lo++) {
          best = Math.min(best, hi - lo + 1);
          if (matched.has(both[lo])) {
            count.set(both[lo], count.get(both[lo])! - 1);
            if (count.get(both[lo]) === 0) have--;
          }
        }
      }
      proximity = matched.size / best;
    }
    const opening = new Set(d.summary.slice(0, 30));
    const op = [...q].reduce((a, w) => a + (opening.has(w) ? idf.get(w) ?? 0 : 0), 0);
    return [proximity, op / total];
  });
};

// The record's genre: its title reports a fix / adds something; the share of its paths that
// are code (not tests or documentation), alone and when the prompt is not about tests or docs.
const FIX_WORD = /\b(fix|fixes|fixed|fixing|revert|typo|flaky|workaround)\b/i;
const ADD_WORD =
  /\b(add|adds|added|introduce|introduces|support|implement|implements|new|refactor|convert|rework|move|use)\b/i;
const NOT_CODE = /(^|\/)(tests?|testsuite|docs?|documentation)(\/|$)|\.(md|rst|txt|at|xml|[1-9])$/i;
const genre: Family = (s) => {
  const aboutTests = /\b(tests?|docs?|documentation|typo|flaky)\b/i.test(s.query.query) ? 1 : 0;
  return records(s).map((r) => {
    const rest = titlePrefix(r.title) === null ? r.title : r.title.slice(r.title.indexOf(":") + 1);
    const f = r.files_touched;
    const code = 1 - (f.length ? f.filter((x) => NOT_CODE.test(x)).length / f.length : 0);
    return [
      FIX_WORD.test(rest) ? 1 : 0,
      ADD_WORD.test(rest) ? 1 : 0,
      code,
      code * (1 - aboutTests),
    ];
  });
};

// Origin variants (the shipped one is `term_origin`: terms in two or more candidates, idf / k):
// the oldest holder only; every term; title holders only; 1/k²; the prompt's adjacent pairs;
// and the candidate's age rank alone (1 = oldest).
const origin: Family = (s) => {
  const idf = idfOf(s);
  const rs = records(s);
  const n = rs.length;
  const q = [...new Set(sequence(s.query.query))].filter((w) => (idf.get(w) ?? 0) > 0);
  const times = rs.map((r) => Date.parse(r.created_at));
  const sets = rs.map((r) => {
    const d = docOf(r);
    return { all: new Set([...d.title, ...d.summary, ...d.files.flat()]), title: new Set(d.title) };
  });
  const byAge = (held: (i: number) => boolean) =>
    [...Array(n).keys()].filter(held).sort((a, b) => times[a] - times[b] || a - b);
  const out = rs.map(() => [0, 0, 0, 0, 0]);
  let total = 0;
  for (const w of q) {
    const iw = idf.get(w)!;
    const all = byAge((i) => sets[i].all.has(w));
    const title = byAge((i) => sets[i].title.has(w));
    if (all.length > 0) total += iw;
    all.forEach((i, k) => {
      if (k === 0) out[i][0] += iw;
      out[i][1] += iw / (k + 1);
      out[i][2] += iw / (k + 1) ** 2;
    });
    title.forEach((i, k) => out[i][3] += iw / (k + 1));
  }
  const pairs = queryPairs(s, idf);
  const pairTotal = pairs.reduce((a, p) => a + p.w, 0) || 1;
  for (const p of pairs) {
    byAge((i) => sets[i].all.has(p.a) && sets[i].all.has(p.b))
      .forEach((i, k) => out[i][4] += p.w / (k + 1));
  }
  const age = new Array<number>(n);
  byAge(() => true).forEach((i, k) => age[i] = 1 - k / Math.max(n - 1, 1));
  return out.map((row, i) => [
    row[0] / (total || 1),
    row[1] / (total || 1),
    row[2] / (total || 1),
    row[3] / (total || 1),
    row[4] / pairTotal,
    age[i],
  ]);
};

// ---- columns over the whole namespace (`store`, `fileorigin`, `churn`) ----

/** A namespace's records by age, and per term and per path the creation times of its holders. */
interface Namespace {
  /** Records in the namespace. */
  size: number;
  /** Per stemmed term (title, summary, paths: as `rerank.ts` reads them), holders' times, sorted. */
  terms: Map<string, number[]>;
  /** Per changed path, holders' times, sorted. */
  paths: Map<string, number[]>;
}

const namespaces = new Map<string, Namespace>();

/**
 * When the prompt was asked (its query's `fixed_at`, the fixing commit's date): columns that read
 * later records can then leave out what did not exist yet. Never, for an undated query.
 */
function askedAt(s: Sample): number {
  const t = s.query.fixed_at === undefined ? Number.NaN : Date.parse(s.query.fixed_at);
  return Number.isFinite(t) ? t : Infinity;
}

function timeOf(r: MemoryRecord): number {
  const t = Date.parse(r.created_at);
  return Number.isFinite(t) ? t : Number.MAX_SAFE_INTEGER;
}

function heldStems(r: MemoryRecord): Set<string> {
  const words = textWords(
    `${r.title} ${r.files_touched.join(" ")} ${r.summary} ${r.facts.join(" ")}`,
  );
  return new Set(words.map(stem));
}

function indexNamespaces(all: readonly MemoryRecord[]): void {
  for (const r of all) {
    const ns = namespaces.get(r.namespace) ??
      namespaces.set(r.namespace, { size: 0, terms: new Map(), paths: new Map() }).get(
        r.namespace,
      )!;
    ns.size++;
    const t = timeOf(r);
    for (const w of heldStems(r)) (ns.terms.get(w) ?? ns.terms.set(w, []).get(w)!).push(t);
    for (const f of new Set(r.files_touched)) {
      (ns.paths.get(f) ?? ns.paths.set(f, []).get(f)!).push(t);
    }
  }
  for (const ns of namespaces.values()) {
    for (const l of ns.terms.values()) l.sort((a, b) => a - b);
    for (const l of ns.paths.values()) l.sort((a, b) => a - b);
  }
}

/** How many of the sorted times are below `t` (strictly, unless `inclusive`). */
function below(
  sorted: readonly number[],
  t: number,
  options: { inclusive?: boolean } = {},
): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < t || (options.inclusive && sorted[mid] === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many of the sorted times are at or below `t`. */
function atOrBelow(sorted: readonly number[], t: number): number {
  return below(sorted, t, { inclusive: true });
}

/** The prompt's distinct stems with IDF > 0, as `rerank.ts`'s `term_origin` takes them. */
function promptStems(s: Sample): { stem: string; idf: number }[] {
  const seen = new Set<string>();
  const out = [];
  for (const t of s.terms!) {
    if (isStopWord(t.term) || t.idf <= 0) continue;
    const k = stem(t.term);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ stem: k, idf: t.idf });
  }
  return out;
}

// `term_origin` over the whole namespace: per prompt term two or more records hold, the
// candidate's place among all its holders by age (1 = the record that brought it in). Columns:
// idf / place; idf when first; idf × (1 − (place − 1) / df); idf / place for terms held by at most
// 2% of the namespace (what a cheap per-term query would serve); the first-holder form of that.
const store: Family = (s) => {
  const ns = namespaces.get(s.query.namespace)!;
  const cap = Math.max(20, ns.size * 0.02);
  const terms = promptStems(s)
    .map((t) => ({ ...t, holders: ns.terms.get(t.stem) ?? [] }))
    .filter((t) => t.holders.length >= 2);
  const total = terms.reduce((a, t) => a + t.idf, 0) || 1;
  const rare = terms.filter((t) => t.holders.length <= cap);
  const rareTotal = rare.reduce((a, t) => a + t.idf, 0) || 1;
  return records(s).map((r) => {
    const held = heldStems(r);
    const time = timeOf(r);
    const row = [0, 0, 0, 0, 0];
    for (const t of terms) {
      if (!held.has(t.stem)) continue;
      const place = below(t.holders, time) + 1;
      const df = t.holders.length;
      row[0] += t.idf / place;
      row[1] += place === 1 ? t.idf : 0;
      row[2] += t.idf * (1 - (place - 1) / df);
      if (df <= cap) {
        row[3] += t.idf / place;
        row[4] += place === 1 ? t.idf : 0;
      }
    }
    return [row[0] / total, row[1] / total, row[2] / total, row[3] / rareTotal, row[4] / rareTotal];
  });
};

function pathStems(path: string): Set<string> {
  return new Set(textWords(path.replace(/\.[a-z0-9]+$/i, "")).map(stem));
}

/**
 * Holders (candidate indexes) with their place by age, oldest first: 1, 2, …; holders of the same
 * instant share the better place, as in `rerank.ts`'s `term_origin`.
 */
function placesByAge(holders: readonly number[], times: readonly number[]): [number, number][] {
  const sorted = [...holders].sort((a, b) => times[a] - times[b]);
  const out: [number, number][] = [];
  for (const [k, i] of sorted.entries()) {
    const tie = k > 0 && times[i] === times[sorted[k - 1]];
    out.push([i, tie ? out[k - 1][1] : k + 1]);
  }
  return out;
}

// `term_origin` over changed paths: per path two or more candidates changed, those candidates
// oldest first, the k-th gets the path's IDF (in the namespace) / k, over the total IDF of those
// paths; the same restricted to paths the prompt relates to (a prompt stem among the path's
// words, or its `subsystem:` prefix in the path); and, over the whole namespace, the IDF share
// of its prompt-related paths that the candidate brought in (first holder).
const fileorigin: Family = (s) => {
  const ns = namespaces.get(s.query.namespace)!;
  const rs = records(s);
  const stems = new Set(promptStems(s).map((t) => t.stem));
  const prefix = titlePrefix(s.query.query);
  const prefixParts = (prefix ?? "").split(/[\s,]+/).filter((p) => p.length >= 3);
  const related = (path: string) => {
    const lower = path.toLowerCase();
    return [...pathStems(path)].some((w) => stems.has(w)) ||
      prefixParts.some((p) => lower.includes(p));
  };
  const idf = (path: string) => Math.log(ns.size / Math.max(1, ns.paths.get(path)?.length ?? 1));
  const times = rs.map(timeOf);
  const holders = new Map<string, number[]>();
  rs.forEach((r, i) => {
    for (const f of new Set(r.files_touched)) {
      (holders.get(f) ?? holders.set(f, []).get(f)!).push(i);
    }
  });
  const out = rs.map(() => [0, 0, 0]);
  let total = 0, relTotal = 0;
  for (const [path, hs] of holders) {
    if (hs.length < 2) continue;
    const w = idf(path);
    if (w <= 0) continue;
    const rel = related(path);
    total += w;
    if (rel) relTotal += w;
    for (const [i, place] of placesByAge(hs, times)) {
      out[i][0] += w / place;
      if (rel) out[i][1] += w / place;
    }
  }
  return rs.map((r, i) => {
    let brought = 0, all = 0;
    for (const f of new Set(r.files_touched)) {
      if (!related(f)) continue;
      const w = idf(f);
      all += w;
      if (below(ns.paths.get(f) ?? [], times[i]) === 0) brought += w;
    }
    return [out[i][0] / (total || 1), out[i][1] / (relTotal || 1), all > 0 ? brought / all : 0];
  });
};

const DAY = 86400e3;

// Changes that followed the candidate to its files. Among the candidates: how many later ones
// share a changed path (log, over 50). Over the namespace: changes to its paths in the 30 days
// after it (log), the same minus those in the 30 days before (a burst the candidate started), and
// the share of its paths changed again within 30 days.
const churn: Family = (s) => {
  const ns = namespaces.get(s.query.namespace)!;
  const rs = records(s);
  const times = rs.map(timeOf);
  const files = rs.map((r) => new Set(r.files_touched));
  const asked = askedAt(s);
  return rs.map((_, i) => {
    let later = 0, known = 0;
    for (let j = 0; j < rs.length; j++) {
      if (j !== i && times[j] > times[i] && [...files[j]].some((f) => files[i].has(f))) {
        later++;
        if (times[j] < asked) known++;
      }
    }
    let after = 0, before = 0, again = 0;
    for (const f of files[i]) {
      const hs = ns.paths.get(f) ?? [];
      const a = atOrBelow(hs, times[i] + 30 * DAY) - atOrBelow(hs, times[i]);
      const b = below(hs, times[i]) - below(hs, times[i] - 30 * DAY);
      after += a;
      before += b;
      if (a > 0) again++;
    }
    // The same two counted over the records older than the prompt (`askedAt`).
    let afterKnown = 0;
    for (const f of files[i]) {
      const hs = ns.paths.get(f) ?? [];
      afterKnown += below(hs, Math.min(asked, times[i] + 30 * DAY + 1)) - atOrBelow(hs, times[i]);
    }
    return [
      Math.log1p(later) / Math.log(50),
      Math.log1p(after) / 5,
      (Math.log1p(after) - Math.log1p(before)) / 5,
      files[i].size > 0 ? again / files[i].size : 0,
      Math.log1p(known) / Math.log(50),
      Math.log1p(Math.max(0, afterKnown)) / 5,
    ];
  });
};

// `term_origin` among the strong candidates only: the holders of each prompt term restricted to
// BM25's top 10, its top 20, or the candidates whose IDF coverage of the prompt (the shipped
// `coverage` column) is at least half the best one's; idf / place over those terms' total IDF.
// `to_asked` is the shipped column over the candidates older than the prompt (for an undated query
// it is the shipped column itself: the variant `-term_origin+to_asked` checks it). It is 0 for
// every candidate made after the fix, so outside `--as-of-fix` it tells the model the fix's date.
const strong: Family = (s) => {
  const rs = records(s);
  const times = rs.map(timeOf);
  const held = rs.map(heldStems);
  const terms = promptStems(s);
  const coverageAt = RERANK_FEATURES.indexOf("coverage");
  const coverage = s.candidates!.map((_, i) => s.features[i][coverageAt]);
  const best = Math.max(0, ...coverage);
  const asked = askedAt(s);
  const pools = [
    (i: number) => i < 10,
    (i: number) => i < 20,
    (i: number) => coverage[i] >= best / 2,
    // The shipped column, over the candidates older than the prompt (`askedAt`).
    (i: number) => times[i] < asked,
  ];
  const out = rs.map(() => pools.map(() => 0));
  pools.forEach((inPool, p) => {
    let total = 0;
    for (const t of terms) {
      const hs = [...rs.keys()].filter((i) => inPool(i) && held[i].has(t.stem));
      if (hs.length < 2) continue;
      total += t.idf;
      for (const [i, place] of placesByAge(hs, times)) out[i][p] += t.idf / place;
    }
    if (total > 0) { for (const row of out) row[p] /= total; }
  });
  return out;
};

// The origin of the prompt's identifiers and paths (`flow_del`, `lib/netdev-dpdk.c`) whole:
// among the candidates whose text holds one, oldest first, the k-th gets 1 / k (averaged over the
// identifiers two or more candidates hold); and whether the candidate is the namespace's first
// record holding it (over the identifiers any record holds).
const idOrigin: Family = (s) => {
  const rs = records(s);
  const ids = promptIdentifiers(s.query.query).filter((id) => id.length >= 4);
  const times = rs.map(timeOf);
  const texts = rs.map((r) =>
    `${r.title}\n${r.summary}\n${r.facts.join(" ")}\n${r.files_touched.join(" ")}`.toLowerCase()
  );
  const first = namespaceTexts.get(s.query.namespace)!;
  const out = rs.map(() => [0, 0]);
  let n = 0, m = 0;
  for (const id of ids) {
    const hs = [...rs.keys()].filter((i) => texts[i].includes(id));
    if (hs.length >= 2) {
      n++;
      for (const [i, place] of placesByAge(hs, times)) out[i][0] += 1 / place;
    }
    const earliest = first.find((x) => x.text.includes(id));
    if (earliest !== undefined) {
      m++;
      hs.forEach((i) => out[i][1] += times[i] <= earliest.time ? 1 : 0);
    }
  }
  return out.map(([a, b]) => [n > 0 ? a / n : 0, m > 0 ? b / m : 0]);
};

/** Per namespace, its records' lowercased texts, oldest first (for `idOrigin`). */
const namespaceTexts = new Map<string, { time: number; text: string }[]>();

/** Per namespace and lowercased title, how many other records quote that title. */
const citations = new Map<string, Map<string, number>>();

function indexTexts(all: readonly MemoryRecord[]): void {
  const titles = new Map<string, Set<string>>();
  for (const r of all) {
    const list = namespaceTexts.get(r.namespace) ??
      namespaceTexts.set(r.namespace, []).get(r.namespace)!;
    list.push({
      time: timeOf(r),
      text: `${r.title}\n${r.summary}\n${r.facts.join(" ")}\n${r.files_touched.join(" ")}`
        .toLowerCase(),
    });
    (titles.get(r.namespace) ?? titles.set(r.namespace, new Set()).get(r.namespace)!)
      .add(r.title.toLowerCase().trim());
  }
  for (const list of namespaceTexts.values()) list.sort((a, b) => a.time - b.time);
  for (const r of all) {
    const known = titles.get(r.namespace)!;
    const counts = citations.get(r.namespace) ??
      citations.set(r.namespace, new Map()).get(r.namespace)!;
    for (const match of r.summary.matchAll(/"([^"\n]{12,200})"/g)) {
      const quoted = match[1].toLowerCase().trim();
      if (known.has(quoted) && quoted !== r.title.toLowerCase().trim()) {
        counts.set(quoted, (counts.get(quoted) ?? 0) + 1);
      }
    }
  }
}

// Records that quote the candidate's title (`commit 1a2b ("netdev: add foo")`): a change others
// refer to. log(1 + quotes) / log(10), capped at 1.
const cited: Family = (s) => {
  const counts = citations.get(s.query.namespace)!;
  return records(s).map((r) => [
    Math.min(1, Math.log1p(counts.get(r.title.toLowerCase().trim()) ?? 0) / Math.log(10)),
  ]);
};

// Novelty, whatever the prompt: how many of the candidate's words no older record of the
// namespace holds (log), and the share of its changed paths no older record changed.
const novelty: Family = (s) => {
  const ns = namespaces.get(s.query.namespace)!;
  return records(s).map((r) => {
    const t = timeOf(r);
    let words = 0;
    for (const w of heldStems(r)) if (below(ns.terms.get(w) ?? [], t) === 0) words++;
    const files = new Set(r.files_touched);
    let created = 0;
    for (const f of files) if (below(ns.paths.get(f) ?? [], t) === 0) created++;
    return [Math.log1p(words) / 5, files.size > 0 ? created / files.size : 0];
  });
};

// The prompt's rarest words: whether the candidate holds the rarest prompt term any candidate
// holds, and the IDF share it holds of the two rarest.
const rarest: Family = (s) => {
  const rs = records(s);
  const held = rs.map(heldStems);
  const terms = promptStems(s)
    .filter((t) => held.some((h) => h.has(t.stem)))
    .sort((a, b) => b.idf - a.idf)
    .slice(0, 2);
  const total = terms.reduce((a, t) => a + t.idf, 0) || 1;
  return held.map((h) => [
    terms.length > 0 && h.has(terms[0].stem) ? 1 : 0,
    terms.reduce((a, t) => a + (h.has(t.stem) ? t.idf : 0), 0) / total,
  ]);
};

// The prompt's `subsystem:` prefix, softly: the share of its words (stemmed) in the candidate's
// prefix (Jaccard), and in the candidate's title at all.
const prefixSoft: Family = (s) => {
  const words = (text: string | null) => new Set(textWords(text ?? "").map(stem));
  const q = words(titlePrefix(s.query.query));
  return records(s).map((r) => {
    if (q.size === 0) return [0, 0];
    const p = words(titlePrefix(r.title));
    const title = words(r.title);
    const inter = [...q].filter((w) => p.has(w)).length;
    const union = new Set([...q, ...p]).size;
    return [inter / union, [...q].filter((w) => title.has(w)).length / q.size];
  });
};

/** Per namespace and changed path, the records that changed it (time, title stems), by age. */
const pathRecords = new Map<
  string,
  Map<string, { time: number; title: Set<string>; summary: Set<string> }[]>
>();

function indexPathRecords(all: readonly MemoryRecord[]): void {
  for (const r of all) {
    const byPath = pathRecords.get(r.namespace) ??
      pathRecords.set(r.namespace, new Map()).get(r.namespace)!;
    const entry = {
      time: timeOf(r),
      title: new Set(textWords(r.title).map(stem)),
      summary: new Set(textWords(r.summary).map(stem)),
    };
    for (const f of new Set(r.files_touched)) {
      (byPath.get(f) ?? byPath.set(f, []).get(f)!).push(entry);
    }
  }
  for (const byPath of pathRecords.values()) {
    for (const list of byPath.values()) list.sort((a, b) => a.time - b.time);
  }
}

// The candidate expanded by the titles of the records that changed its files (paths at most 2%
// of the namespace changed; the 10 nearest records per path): the IDF share of the prompt's terms
// in the titles of the later ones; of those the candidate itself lacks; in the earlier ones; in
// both.
const expansion: Family = (s) => {
  const ns = namespaces.get(s.query.namespace)!;
  const byPath = pathRecords.get(s.query.namespace)!;
  const cap = Math.max(20, ns.size * 0.02);
  const terms = promptStems(s);
  const total = terms.reduce((a, t) => a + t.idf, 0) || 1;
  const asked = askedAt(s);
  return records(s).map((r) => {
    const t = timeOf(r);
    const own = heldStems(r);
    const before = new Set<string>(), before3 = new Set<string>();
    const later = new Set<string>(), earlier = new Set<string>();
    const near = new Set<string>(), all = new Set<string>(), bodies = new Set<string>();
    for (const f of new Set(r.files_touched)) {
      const list = byPath.get(f) ?? [];
      if (list.length > cap) continue;
      const at = list.findIndex((x) => x.time >= t);
      const from = at < 0 ? list.length : at;
      const after = list.slice(from).filter((x) => x.time > t);
      after.slice(0, 10).forEach((x) => {
        for (const w of x.title) later.add(w);
        for (const w of x.summary) bodies.add(w);
      });
      for (const x of after.slice(0, 3)) for (const w of x.title) near.add(w);
      const known = after.filter((x) => x.time < asked);
      for (const x of known.slice(0, 10)) for (const w of x.title) before.add(w);
      for (const x of known.slice(0, 3)) for (const w of x.title) before3.add(w);
      for (const x of after) for (const w of x.title) all.add(w);
      for (const x of list.slice(Math.max(0, from - 10), from)) {
        for (const w of x.title) earlier.add(w);
      }
    }
    const share = (held: (w: string) => boolean) =>
      terms.reduce((a, x) => a + (held(x.stem) ? x.idf : 0), 0) / total;
    return [
      share((w) => later.has(w)),
      share((w) => later.has(w) && !own.has(w)),
      share((w) => earlier.has(w)),
      share((w) => later.has(w) || earlier.has(w)),
      share((w) => near.has(w)),
      share((w) => all.has(w)),
      share((w) => later.has(w) || bodies.has(w)),
      share((w) => before.has(w)),
      share((w) => before3.has(w)),
    ];
  });
};

// The shipped `file_neighbours` over the candidates older than the prompt (`askedAt`; for an
// undated query it is the shipped column itself): does its gain need changes made after the fix?
const neighboursAsked: Family = (s) => {
  const rs = records(s);
  const times = rs.map(timeOf);
  const asked = askedAt(s);
  const bm25 = s.features.map((f) => f[0]);
  const files = rs.map((r) => new Set(r.files_touched));
  return rs.map((_, i) => {
    let support = 0;
    for (let j = 0; j < rs.length; j++) {
      if (j === i || times[j] >= asked) continue;
      if ([...files[j]].some((f) => files[i].has(f))) support = Math.max(support, bm25[j]);
    }
    return [support];
  });
};

// Word families the light stem keeps apart (`reconciliation` / `reconcile`, `routing` /
// `route`, `fragmentation` / `fragments`): a prompt word matches a record word sharing its first
// five letters (truncation stemming). Columns: the IDF share of the prompt's words so matched in
// any field, in the title, and the share matched this way but not by the stem.
const PREFIX = 5;
const morph: Family = (s) => {
  const idf = idfOf(s);
  const cut = (u: string) => u.slice(0, PREFIX);
  const q = new Map<string, { key: string; idf: number }>();
  for (const u of units(s.query.query)) {
    const key = stem(u);
    const i = idf.get(key) ?? 0;
    if (i <= 0) continue;
    const k = cut(key);
    if ((q.get(k)?.idf ?? -1) < i) q.set(k, { key, idf: i });
  }
  const total = [...q.values()].reduce((a, x) => a + x.idf, 0);
  return records(s).map((r) => {
    if (total <= 0) return [0, 0, 0];
    const title = units(r.title);
    const all = [
      ...title,
      ...units(`${r.summary} ${r.facts.join(" ")}`),
      ...units(r.files_touched.join(" ")),
    ];
    const cutAll = new Set(all.map((u) => cut(stem(u))));
    const cutTitle = new Set(title.map((u) => cut(stem(u))));
    const stems = new Set(all.map(stem));
    let any = 0, inTitle = 0, extra = 0;
    for (const [k, x] of q) {
      if (cutAll.has(k)) {
        any += x.idf;
        if (!stems.has(x.key)) extra += x.idf;
      }
      if (cutTitle.has(k)) inTitle += x.idf;
    }
    return [any / total, inTitle / total, extra / total];
  });
};

// Term weights from the candidate list itself: a prompt word that every candidate holds tells
// them apart no better than none, one that two hold decides between them. Per prompt word held
// by some candidate, weight ln((n + 1) / holders) (times its IDF in the second form); the columns
// are the weighted share the candidate holds (any field; title only).
const local: Family = (s) => {
  const idf = idfOf(s);
  const rs = records(s);
  const n = rs.length;
  const q = [...new Set(sequence(s.query.query))].filter((w) => (idf.get(w) ?? 0) > 0);
  const sets = rs.map((r) => {
    const d = docOf(r);
    return { all: new Set([...d.title, ...d.summary, ...d.files.flat()]), title: new Set(d.title) };
  });
  const weights = q.map((w) => {
    const holders = sets.filter((x) => x.all.has(w)).length;
    const lw = holders > 0 ? Math.log((n + 1) / holders) : 0;
    return { w, lw, lwi: lw * idf.get(w)! };
  });
  const [t1, t2] = [
    weights.reduce((a, x) => a + x.lw, 0) || 1,
    weights.reduce((a, x) => a + x.lwi, 0) || 1,
  ];
  return sets.map((x) => {
    let all = 0, allI = 0, title = 0;
    for (const { w, lw, lwi } of weights) {
      if (x.all.has(w)) {
        all += lw;
        allI += lwi;
      }
      if (x.title.has(w)) title += lw;
    }
    return [all / t1, allI / t2, title / t1];
  });
};

// Symptom words: a prompt about a bug shares its symptom ("flaky", "crash", "unaligned", "typo")
// with earlier fixes of the same kind of bug, and its object with the change that caused it. A
// prompt word's symptom share is how many of the candidates whose title holds it are fixes
// themselves (smoothed: fixes / (holders + 1)). Columns: the IDF share of the prompt's words in
// the candidate's title weighted by symptom share, the same by one minus it (the object words),
// the symptom-weighted share over any field, and the plain "title reports a fix" times the title
// coverage (the interaction a linear model cannot form).
const FIXES = /\b(fix|fixes|fixed|fixing|avoid|prevent|correct|workaround|revert)\b/i;
const symptom: Family = (s) => {
  const idf = idfOf(s);
  const rs = records(s);
  const q = [...new Set(sequence(s.query.query))].filter((w) => (idf.get(w) ?? 0) > 0);
  const total = q.reduce((a, w) => a + idf.get(w)!, 0) || 1;
  const rest = (t: string) => titlePrefix(t) === null ? t : t.slice(t.indexOf(":") + 1);
  const fix = rs.map((r) => FIXES.test(rest(r.title)));
  const sets = rs.map((r) => {
    const d = docOf(r);
    return { all: new Set([...d.title, ...d.summary, ...d.files.flat()]), title: new Set(d.title) };
  });
  const share = new Map(q.map((w) => {
    let holders = 0, fixes = 0;
    sets.forEach((x, i) => {
      if (x.title.has(w)) {
        holders++;
        if (fix[i]) fixes++;
      }
    });
    return [w, fixes / (holders + 1)];
  }));
  return sets.map((x, i) => {
    let sym = 0, obj = 0, symAny = 0, cov = 0;
    for (const w of q) {
      const iw = idf.get(w)!, sh = share.get(w)!;
      if (x.title.has(w)) {
        sym += iw * sh;
        obj += iw * (1 - sh);
        cov += iw;
      }
      if (x.all.has(w)) symAny += iw * sh;
    }
    return [sym / total, obj / total, symAny / total, fix[i] ? cov / total : 0];
  });
};

// `term_origin` (as `core/search/rerank.ts` computes it) over part of the prompt's terms. The
// words of the prompt's `subsystem:` prefix are held by most candidates, and their oldest holder
// is the component's creation, which is seldom what broke: the origin of the other words
// (`origin_object`); of the words held by at most a third of the candidates (`origin_rare`); and
// the shipped column minus the first (`origin_prefix`, what the prefix words contribute).
const originParts: Family = (s) => {
  const n = s.candidates!.length;
  const words = s.candidates!.map(({ record: r }) =>
    new Set(
      textWords(`${r.title}\n${r.files_touched.join(" ")}\n${r.summary} ${r.facts.join(" ")}`)
        .map(stem),
    )
  );
  const prefix = titlePrefix(s.query.query);
  const prefixWords = new Set(prefix === null ? [] : textWords(prefix).map(stem));
  // The shipped column itself, computed over the kept terms only.
  const at = RERANK_FEATURES.indexOf("term_origin");
  const origin = (keep: (t: WeightedTerm) => boolean) =>
    rerankFeatures(s.query.query, s.candidates!, { terms: s.terms!.filter(keep) })
      .map((row) => row[at]);
  const object = origin((t) => !prefixWords.has(stem(t.term)));
  const rare = origin((t) => words.filter((w) => w.has(stem(t.term))).length <= n / 3);
  const all = origin(() => true);
  return object.map((v, i) => [v, rare[i], all[i] - v]);
};

// Recency: a bug is most often reported soon after the change that made it. `recency` is the
// candidate's place among the candidates by date (1 = newest), `now_gap` the days between it and
// when the prompt was asked, log-scaled (0 = that day, 1 = ten years): `fixed_at` with
// `--as-of-fix`, else the newest record of the namespace (the memory's present, since the later
// records are candidates too); `freshN` 1 − days / N, 0 beyond N days (only the last month,
// half-year, year count).
const TEN_YEARS = Math.log1p(3650);
const recency: Family = (s, { collections, asOf }) => {
  const rs = records(s);
  const n = rs.length;
  const times = rs.map((r) => Date.parse(r.created_at));
  const now = asOf ? askedAt(s) : collections.get(s.query.namespace)!.newest;
  const place = new Array<number>(n);
  [...times.keys()].sort((a, b) => times[b] - times[a] || a - b)
    .forEach((i, k) => place[i] = 1 - k / Math.max(n - 1, 1));
  return rs.map((_, i) => {
    const days = Math.max(0, now - times[i]) / DAY;
    return [
      place[i],
      Math.min(Math.log1p(days) / TEN_YEARS, 1),
      Math.max(0, 1 - days / 30),
      Math.max(0, 1 - days / 180),
      Math.max(0, 1 - days / 365),
    ];
  });
};

const FAMILIES: Record<string, { family: Family; columns: string[] }> = {
  sdm: {
    family: sdm,
    columns: ["od_title", "od_summary", "od_files", "od_any", "uw_title", "uw8"],
  },
  ql: {
    family: ql,
    columns: ["ql50", "ql50df", "ql50title", "ql300", "ql300df", "ql300title"],
  },
  head: { family: head, columns: ["head_rec", "head_query", "obj_rec", "obj_query"] },
  paths: { family: paths, columns: ["base_cov", "dir_cov"] },
  neighbours: { family: neighbours, columns: ["nb_time", "nb_file_n", "nb_rare", "nb_sum"] },
  span: { family: span, columns: ["minspan", "opening_cov"] },
  genre: { family: genre, columns: ["rec_fix", "rec_add", "code_share", "code_share_q"] },
  recency: {
    family: recency,
    columns: ["recency", "now_gap", "fresh30", "fresh180", "fresh365"],
  },
  origin_parts: {
    family: originParts,
    columns: ["origin_object", "origin_rare", "origin_prefix"],
  },
  symptom: { family: symptom, columns: ["sym_title", "obj_title", "sym_any", "fix_x_title"] },
  morph: { family: morph, columns: ["pfx_cov", "pfx_title", "pfx_extra"] },
  local: { family: local, columns: ["local_cov", "local_idf_cov", "local_title"] },
  origin: {
    family: origin,
    columns: ["orig_first", "orig_all", "orig_sq", "orig_title", "orig_pair", "age"],
  },
  store: {
    family: store,
    columns: ["so_rank", "so_first", "so_frac", "so_rank_rare", "so_first_rare"],
  },
  fileorigin: { family: fileorigin, columns: ["fo_all", "fo_rel", "fo_brought"] },
  churn: {
    family: churn,
    columns: ["lc_cand", "lc_after", "lc_burst", "lc_again", "lc_cand_asked", "lc_after_asked"],
  },
  strong: { family: strong, columns: ["to_top10", "to_top20", "to_cov", "to_asked"] },
  identifiers: { family: idOrigin, columns: ["id_origin", "id_first"] },
  cited: { family: cited, columns: ["cited"] },
  honest: { family: neighboursAsked, columns: ["fn_asked"] },
  novelty: { family: novelty, columns: ["nov_words", "nov_files"] },
  rarest: { family: rarest, columns: ["rarest_hit", "rarest2"] },
  prefix: { family: prefixSoft, columns: ["prefix_jaccard", "prefix_in_title"] },
  expansion: {
    family: expansion,
    columns: [
      "exp_later",
      "exp_later_new",
      "exp_earlier",
      "exp_both",
      "exp_later3",
      "exp_later_all",
      "exp_later_body",
      "exp_later_asked",
      "exp_later3_asked",
    ],
  },
};

function collections(all: readonly MemoryRecord[]): Map<string, Collection> {
  const out = new Map<string, Collection>();
  for (const r of all) {
    const c = out.get(r.namespace) ??
      out.set(r.namespace, { cf: new Map(), total: 0, docs: 0, newest: 0 })
        .get(r.namespace)!;
    const d = docOf(r);
    const words = [...d.title, ...d.summary, ...d.files.flat()];
    c.docs++;
    c.newest = Math.max(c.newest, Date.parse(r.created_at) || 0);
    c.total += words.length;
    for (const w of words) c.cf.set(w, (c.cf.get(w) ?? 0) + 1);
  }
  return out;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string" },
      families: { type: "string" },
      variants: { type: "string" },
      git: { type: "string" },
      baseline: { type: "string" },
      "on-shipped": { type: "boolean" },
      "fix-clones": { type: "string" },
      "as-of-fix": { type: "boolean" },
    },
  });
  const wanted = values.families?.split(",") ?? Object.keys(FAMILIES);
  const unknown = wanted.filter((f) => !(f in FAMILIES));
  if (unknown.length > 0) {
    console.error(`unknown family ${unknown.join(", ")}: choose among ${Object.keys(FAMILIES)}`);
    Deno.exit(2);
  }
  const set = await loadRealSet(values.data);
  const clones = values["fix-clones"]?.split(",").filter((c) => c !== "") ?? [];
  if (clones.length > 0) {
    await addFixDates(set.queries, clones);
    console.log(`dates of ${set.queries.length} fixing commits`);
  }
  // `--as-of-fix`: every query sees only the records made by its `fixed_at` (`collect`'s `asOf`).
  const asOf = values["as-of-fix"] ?? false;
  const undated = set.queries.filter((q) => q.fixed_at === undefined).length;
  if (asOf && undated > 0) {
    console.error(
      `--as-of-fix: ${undated} queries of the set have no fixing commit date: pass ` +
        "--fix-clones=DIR,… with clones of its repositories (openvswitch/ovs, ovn-org/ovn)",
    );
    Deno.exit(2);
  }
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-features-" });
  const storage = openSqliteStorage(`${dir}/set.db`);
  let samples: Sample[];
  try {
    for (const record of set.records) await storage.putRecord(record);
    const spaces = await trainSpaces(storage, set.repos.keys());
    samples = collect(storage, set.queries, { spaces, keep: true, asOf });
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
  const histories: string[] = [];
  const namespacePool = [...set.records];
  for (const root of values.git?.split(",").filter((r) => r !== "") ?? []) {
    const repo = historyName(root);
    const history = await gitSamples(root, { repo, keep: true, asOf, pool: namespacePool });
    console.log(`${repo}: ${history.length} queries`);
    histories.push(repo);
    samples.push(...history);
  }
  const pool = [...set.records];
  for (const s of samples) for (const c of s.candidates!) pool.push(c.record);
  const stats = collections(
    [...new Map(pool.map((r) => [r.record_id, r])).values()],
  );
  const context: Context = { collections: stats, asOf };
  indexNamespaces(namespacePool);
  indexTexts(namespacePool);
  indexPathRecords(namespacePool);
  // The shipped columns come out of the features; the families' columns are computed once.
  // `--on-shipped`: the baseline is every shipped column, the families' columns come on top.
  const shipped = values["on-shipped"] ? [] : SHIPPED;
  const shippedAt = shipped.map((name) => RERANK_FEATURES.indexOf(name));
  const names = [...shipped];
  const extra = samples.map((s) => s.features.map((f) => shippedAt.map((j) => f[j])));
  const base = samples.map((s) => ({
    ...s,
    features: s.features.map((f) => f.filter((_, j) => !shippedAt.includes(j))),
  }));
  for (const name of wanted) {
    const { family, columns } = FAMILIES[name];
    const started = performance.now();
    base.forEach((s, k) => family(s, context).forEach((row, i) => extra[k][i].push(...row)));
    console.log(
      `${name}: ${((performance.now() - started) / samples.length).toFixed(2)} ms per query`,
    );
    names.push(...columns);
  }
  const variants = (values.variants ?? names.join(",")).split(",").map((v) => v.split("+"));
  // `--baseline=VARIANT` (`a+b`, `a+-b`): the row every other is paired against (default: the
  // base columns alone; the shipped features: `--baseline=term_origin+file_neighbours`).
  const baselineVariant = values.baseline?.split("+").filter((c) => c !== "") ?? [];
  // `-name` leaves a base column out (an ablation) instead of adding one.
  const baseNames = RERANK_FEATURES.filter((name) => !shipped.includes(name));
  const missing = [...variants.flat(), ...baselineVariant].filter((c) =>
    c.startsWith("-") ? !baseNames.includes(c.slice(1)) : !names.includes(c)
  );
  if (missing.length > 0) throw new Error(`no column ${missing.join(", ")} (see --families)`);
  const repos = [...new Set(set.queries.map((q) => q.repo))];
  const short = (repo: string) => repo.split("/").pop()!;
  const baseline = new Map<string, Column>();
  const run = (label: string, variant: string[]) => {
    const columns = variant.filter((c) => !c.startsWith("-"));
    const dropped = variant.filter((c) => c.startsWith("-")).map((c) =>
      baseNames.indexOf(c.slice(1))
    );
    const at = columns.map((c) => names.indexOf(c));
    const all = base.map((s, k) => ({
      ...s,
      features: s.features.map((f, i) => [
        ...f.filter((_, j) => !dropped.includes(j)),
        ...at.map((j) => extra[k][i][j]),
      ]),
    }));
    const cells: string[] = [];
    for (const repo of repos) {
      const weights = train(all.filter((s) => s.query.repo === repo), TRAIN_OPTIONS);
      const scores = (s: Sample) => s.features.map((f) => linearScore(f, weights));
      const tests: [string, Sample[]][] = [
        ...repos.filter((r) => r !== repo).map((r): [string, Sample[]] => [
          short(r),
          all.filter((s) => s.query.repo === r),
        ]),
        ...histories.map((h): [string, Sample[]] => [h, all.filter((s) => s.query.repo === h)]),
      ];
      if (histories.length > 0) {
        tests.push(["hist", all.filter((s) => histories.includes(s.query.repo))]);
      }
      for (const [name, test] of tests) {
        const column = evaluate(`${short(repo)}→${name}`, test, scores);
        const before = baseline.get(column.label);
        if (before === undefined) baseline.set(column.label, column);
        cells.push(
          before === undefined
            ? column.cell
            : `${column.cell} ${paired(column, before).slice(column.label.length + 1)}`,
        );
      }
      if (columns.length > 0) cells.push(`weights ${weights.slice(-columns.length).join(", ")}`);
    }
    console.log(`${label.padEnd(28)} ${cells.join("   ")}`);
  };
  run(`baseline ${baselineVariant.join("+")}`.trim(), baselineVariant);
  for (const v of variants) run(v.join("+"), v);
}
