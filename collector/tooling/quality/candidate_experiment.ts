/**
 * Can more candidates lift the reranker? For about a quarter of the real set's prompts the right
 * record is not among BM25's 50 candidates, so no reranking can find it. Each variant here adds
 * candidates from one general source to BM25's 50, gives every candidate the reranker's
 * features (a candidate BM25 ranked deeper keeps its real BM25 scores; one that matches no query
 * term gets 0), optionally appends columns about the source, retrains the linear model exactly as
 * `train_rerank.ts` does, and reports both repositories with each one held out in turn.
 *
 * Sources:
 * - `dense`: the records nearest the prompt in the namespace's own term space (the shipped
 *   128-d LSA space, `record_space.ts`), a record folded in by its title or by all of it.
 * - `rm3`: pseudo-relevance feedback: the rarest words of BM25's best records, weighed by their
 *   BM25 score, appended to the prompt for a second BM25 pass.
 * - `column`: BM25's matches re-sorted by one column's score (title, summary or paths alone).
 * - `files`: the changed paths BM25's best records share, weighed by their rarity; records that
 *   touched them.
 *
 * `reach` is how many prompts of each repository have their right record among the candidates:
 * the ceiling of any reranker over that pool.
 *
 * ```sh
 * deno run -A collector/tooling/quality/candidate_experiment.ts [--data=DIR] [--variants=a,b]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import {
  codeParts,
  embedTerms,
  isStopWord,
  type LexicalCandidate,
  recordSpaceDoc,
  rerankFeatures,
  type TermSpace,
  textWords,
  type WeightedTerm,
} from "@kiro-learn/core/search";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { CANDIDATE_DEPTH } from "../../daemon/retrieval/mod.ts";
import { loadRealSet, type RealQuery } from "./real_set.ts";
import { rank, type Sample, table, train, TRAIN_OPTIONS, trainSpaces } from "./train_rerank.ts";

/** How deep the BM25 list is read for the scores of candidates from other sources. */
const BM25_SCORE_DEPTH = 3000;

/** How many of the dense list's best are kept per query (the deepest variant's pool). */
const DENSE_DEPTH = 100;

type Column = "bm25Title" | "bm25Summary" | "bm25Files";

interface Variant {
  name: string;
  /** Extra candidates per source, in this order, each after the previous ones. */
  denseTitle?: number;
  denseDoc?: number;
  rm3?: number;
  files?: number;
  column?: { name: Column; k: number };
  /** Append the dense columns (doc cosine, inverse dense ranks, inverse rm3 rank). */
  denseColumns?: boolean;
  /** Append the file-vote columns (best voted path of the record, inverse file-list rank). */
  fileColumns?: boolean;
}

const VARIANTS: readonly Variant[] = [
  { name: "base" },
  { name: "base+dense-cols", denseColumns: true },
  { name: "dense-title10", denseTitle: 10, denseColumns: true },
  { name: "dense-title25", denseTitle: 25, denseColumns: true },
  { name: "dense-doc25", denseDoc: 25, denseColumns: true },
  { name: "rm3-25", rm3: 25, denseColumns: true },
  { name: "dense-title25+rm3-25", denseTitle: 25, rm3: 25, denseColumns: true },
  { name: "column-files25", column: { name: "bm25Files", k: 25 } },
  { name: "column-title25", column: { name: "bm25Title", k: 25 } },
  { name: "column-summary25", column: { name: "bm25Summary", k: 25 } },
  { name: "base+file-cols", fileColumns: true },
  { name: "files10", files: 10 },
  { name: "files10+file-cols", files: 10, fileColumns: true },
  { name: "files25+file-cols", files: 25, fileColumns: true },
];

/** A record's vector of unit length (zeros when the space knows none of its terms). */
function unit(v: Float32Array | null, dims: number): Float32Array {
  const out = new Float32Array(dims);
  if (v === null) return out;
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < dims; i++) out[i] = v[i] / n;
  return out;
}

/** Words and identifier parts of a record, as the feedback expansion counts them. */
function feedbackWords(r: MemoryRecord): string[] {
  const text = `${r.title}\n${r.summary}\n${r.files_touched.join(" ")}`;
  const parts = codeParts(text);
  return [...textWords(text), ...(parts === "" ? [] : parts.split(" "))]
    .filter((w) => w.length >= 2 && !/^[0-9]+$/.test(w) && !isStopWord(w));
}

/** One namespace's precomputed tables. */
interface Namespace {
  records: MemoryRecord[];
  index: Map<string, number>;
  space: TermSpace;
  titleVectors: Float32Array[];
  docVectors: Float32Array[];
  wordDf: Map<string, number>;
  fileDf: Map<string, number>;
  byFile: Map<string, MemoryRecord[]>;
}

function prepareNamespace(records: MemoryRecord[], space: TermSpace): Namespace {
  const wordDf = new Map<string, number>();
  const fileDf = new Map<string, number>();
  const byFile = new Map<string, MemoryRecord[]>();
  for (const r of records) {
    for (const w of new Set(feedbackWords(r))) wordDf.set(w, (wordDf.get(w) ?? 0) + 1);
    for (const f of new Set(r.files_touched)) {
      fileDf.set(f, (fileDf.get(f) ?? 0) + 1);
      const list = byFile.get(f) ?? [];
      list.push(r);
      byFile.set(f, list);
    }
  }
  return {
    records,
    index: new Map(records.map((r, i) => [r.record_id, i])),
    space,
    titleVectors: records.map((r) =>
      unit(embedTerms(space, { title: r.title, summary: "", files: [] }), space.dims)
    ),
    docVectors: records.map((r) => unit(embedTerms(space, recordSpaceDoc(r)), space.dims)),
    wordDf,
    fileDf,
    byFile,
  };
}

/** Cosines of the prompt with every record, and the ids of the best {@linkcode DENSE_DEPTH}. */
function dense(ns: Namespace, query: string, vectors: Float32Array[]) {
  const q = unit(
    embedTerms(ns.space, { title: query, summary: "", files: [] }),
    ns.space.dims,
  );
  const cos = new Float32Array(vectors.length);
  vectors.forEach((v, i) => {
    let s = 0;
    for (let j = 0; j < v.length; j++) s += v[j] * q[j];
    cos[i] = s;
  });
  const top = [...cos.keys()].sort((a, b) => cos[b] - cos[a]).slice(0, DENSE_DEPTH)
    .map((i) => ns.records[i].record_id);
  return { cos, top };
}

/** RM3-style expansion terms: rare words of the best BM25 records, weighed by BM25 score. */
function rm3Terms(ns: Namespace, query: string, top: readonly LexicalCandidate[]): string[] {
  const n = ns.records.length;
  const asked = new Set(textWords(query));
  const weights = new Map<string, number>();
  const docs = top.slice(0, 10);
  const best = Math.max(1e-9, ...docs.map((d) => d.bm25));
  for (const d of docs) {
    const words = feedbackWords(d.record);
    const tf = new Map<string, number>();
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    const weight = Math.exp(d.bm25 - best);
    for (const [w, count] of tf) {
      const df = ns.wordDf.get(w) ?? 1;
      if (df < 2 || df > 0.1 * n || asked.has(w)) continue;
      weights.set(w, (weights.get(w) ?? 0) + weight * (count / words.length) * Math.log(n / df));
    }
  }
  return [...weights].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([w]) => w);
}

/** Paths voted by BM25's five best records; the records that touched the three best, ordered. */
function fileVotes(ns: Namespace, ranked: readonly LexicalCandidate[]) {
  const n = ns.records.length;
  const votes = new Map<string, number>();
  const best = ranked[0]?.bm25 || 1;
  for (const c of ranked.slice(0, 5)) {
    const spread = Math.sqrt(Math.max(1, c.record.files_touched.length));
    for (const f of c.record.files_touched) {
      const v = (c.bm25 / best) * Math.log(n / (ns.fileDf.get(f) ?? 1)) / spread;
      votes.set(f, (votes.get(f) ?? 0) + v);
    }
  }
  const files = [...votes].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([f]) => f);
  const bm25Rank = new Map(ranked.map((c, i) => [c.record.record_id, i]));
  const order = new Map<string, number>();
  files.forEach((f, fi) => {
    for (const r of ns.byFile.get(f) ?? []) {
      const key = (bm25Rank.get(r.record_id) ?? BM25_SCORE_DEPTH) + fi * 0.1;
      order.set(r.record_id, Math.min(order.get(r.record_id) ?? Infinity, key));
    }
  });
  const most = Math.max(1e-9, ...votes.values());
  return {
    ordered: [...order].sort((a, b) => a[1] - b[1]).map(([id]) => id),
    score: (r: MemoryRecord) =>
      Math.max(0, ...r.files_touched.map((f) => votes.get(f) ?? 0)) / most,
  };
}

/** What every variant reads of one query, computed once. */
interface Prepared {
  query: RealQuery;
  ns: Namespace;
  ranked: LexicalCandidate[];
  terms: WeightedTerm[];
  title: ReturnType<typeof dense>;
  doc: ReturnType<typeof dense>;
  rm3: string[];
  files: ReturnType<typeof fileVotes>;
}

function sample(p: Prepared, variant: Variant): Sample {
  const pool = p.ranked.slice(0, CANDIDATE_DEPTH);
  const taken = new Set(pool.map((c) => c.record.record_id));
  const extra: string[] = [];
  // A source's best k, less what is already in (`fresh`: its first k not already in).
  const take = (ids: readonly string[], k: number, fresh = false) => {
    const picked = fresh ? ids.filter((x) => !taken.has(x)).slice(0, k) : ids.slice(0, k);
    for (const id of picked.filter((x) => !taken.has(x))) {
      taken.add(id);
      extra.push(id);
    }
  };
  if (variant.denseTitle) take(p.title.top, variant.denseTitle);
  if (variant.denseDoc) take(p.doc.top, variant.denseDoc);
  if (variant.column) {
    const column = variant.column.name;
    const byColumn = [...p.ranked].sort((a, b) => b[column] - a[column]);
    take(byColumn.map((c) => c.record.record_id), variant.column.k, true);
  }
  if (variant.rm3) take(p.rm3, variant.rm3);
  // The file list starts with BM25's own candidates (ordered by BM25): its first k new ones.
  if (variant.files) take(p.files.ordered, variant.files, true);
  const bm25 = new Map(p.ranked.map((c) => [c.record.record_id, c]));
  const candidates = [
    ...pool,
    ...extra.map((id) =>
      bm25.get(id) ??
        {
          record: p.ns.records[p.ns.index.get(id)!],
          bm25: 0,
          bm25Title: 0,
          bm25Summary: 0,
          bm25Files: 0,
        }
    ).sort((a, b) => b.bm25 - a.bm25),
  ];
  const ids = candidates.map((c) => c.record.record_id);
  let features = rerankFeatures(p.query.query, candidates, { terms: p.terms, space: p.ns.space });
  if (variant.denseColumns) {
    const cos = (id: string) => Math.max(0, p.doc.cos[p.ns.index.get(id)!]);
    const most = Math.max(1e-9, ...ids.map(cos));
    const inverse = (list: readonly string[], id: string) => {
      const at = list.indexOf(id);
      return at < 0 ? 0 : 1 / (at + 1);
    };
    features = features.map((row, i) => [
      ...row,
      cos(ids[i]) / most,
      inverse(p.title.top, ids[i]),
      inverse(p.doc.top, ids[i]),
      inverse(p.rm3, ids[i]),
    ]);
  }
  if (variant.fileColumns) {
    const at = new Map(p.files.ordered.map((id, i) => [id, i]));
    features = features.map((row, i) => [
      ...row,
      p.files.score(candidates[i].record),
      at.has(ids[i]) ? 1 / (at.get(ids[i])! + 1) : 0,
    ]);
  }
  return { query: p.query, ids, features };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { data: { type: "string" }, variants: { type: "string" } },
  });
  const wanted = values.variants?.split(",");
  const variants = VARIANTS.filter((v) => !wanted || wanted.includes(v.name));
  const set = await loadRealSet(values.data);
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-candidates-" });
  const storage = openSqliteStorage(`${dir}/candidates.db`);
  try {
    for (const record of set.records) await storage.putRecord(record);
    const spaces = await trainSpaces(storage, set.repos.keys());
    const namespaces = new Map<string, Namespace>();
    for (const [namespace, space] of spaces) {
      namespaces.set(
        namespace,
        prepareNamespace(set.records.filter((r) => r.namespace === namespace), space),
      );
    }
    const started = performance.now();
    const prepared: Prepared[] = set.queries.map((query) => {
      const ns = namespaces.get(query.namespace)!;
      const found = storage.searchCandidatesSync(query.namespace, query.query, {
        limit: BM25_SCORE_DEPTH,
      });
      // The namespace's own record objects: the storage's copies would be kept once per query.
      const ranked = found.candidates.map((c) => ({
        ...c,
        record: ns.records[ns.index.get(c.record.record_id)!],
      }));
      const rm3 = rm3Terms(ns, query.query, ranked);
      const second = storage.searchCandidatesSync(
        query.namespace,
        `${query.query} ${rm3.join(" ")}`,
        {
          limit: CANDIDATE_DEPTH,
        },
      );
      return {
        query,
        ns,
        ranked,
        terms: found.terms,
        title: dense(ns, query.query, ns.titleVectors),
        doc: dense(ns, query.query, ns.docVectors),
        rm3: second.candidates.map((c) => c.record.record_id),
        files: fileVotes(ns, ranked),
      };
    });
    console.log(
      `prepared ${prepared.length} queries in ${
        ((performance.now() - started) / 1000).toFixed(0)
      } s`,
    );
    const repos = [...new Set(set.queries.map((q) => q.repo))].sort();
    console.log(`variant | trained on | ${repos.map((r) => `${r} r@5/MRR (reach)`).join(" | ")}`);
    for (const variant of variants) {
      const samples = prepared.map((p) => sample(p, variant));
      const reach = (repo: string) =>
        samples.filter((s) =>
          s.query.repo === repo && s.ids.some((id) => s.query.relevant.includes(id))
        ).length;
      for (const trainRepo of repos) {
        const weights = train(samples.filter((s) => s.query.repo === trainRepo), TRAIN_OPTIONS);
        const scores = table(samples, (s) => rank(s, weights).ids);
        const cells = repos.map((repo) => {
          const a = scores.get(repo)!;
          return `${a.recall5.toFixed(3)}/${a.mrr10.toFixed(3)} (${reach(repo)})`;
        });
        console.log(`${variant.name} | ${trainRepo} | ${cells.join(" | ")}`);
      }
    }
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}
