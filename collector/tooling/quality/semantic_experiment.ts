/**
 * Does a term space learned from a namespace's own records (`core/search/term_space.ts`) help
 * the reranker? Each variant adds one feature column, the cosine of prompt and candidate in the
 * space, to the reranker's features; the weights are trained exactly as `train_rerank.ts` does
 * (on one repository) and the other repository is the held-out verdict.
 *
 * ```sh
 * deno run -A collector/tooling/quality/semantic_experiment.ts --data=DIR [--variants=a,b]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import {
  embedTerms,
  recordSpaceDoc,
  termCosine,
  type TermSide,
  type TermSpace,
  termSpaceColumn,
  type TermSpaceDoc,
  termTokens,
  trainTermSpace,
  type TrainTermSpaceOptions,
  trainWordSpace,
  type TrainWordSpaceOptions,
} from "@kiro-learn/core/search";
import { softCoverage } from "./_soft_coverage.ts";
import {
  trainTermTranslation,
  type TrainTermTranslationOptions,
  translationScore,
} from "./_term_translation.ts";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { loadRealSet, TRAIN_REPO } from "./real_set.ts";
import {
  collect,
  printTable,
  rank,
  type Sample,
  table,
  train,
  TRAIN_OPTIONS,
} from "./train_rerank.ts";

/** A feature learned per namespace: trained on its records, then scoring prompt × record. */
interface Variant {
  name: string;
  prepare(docs: readonly TermSpaceDoc[]): { size: string; score: Scorer };
  /** Divide the column by its largest value among the query's candidates. */
  relative?: boolean;
}

type Scorer = (query: string, doc: TermSpaceDoc, id: string) => number;

function space(
  name: string,
  train: TrainTermSpaceOptions & TrainWordSpaceOptions & { words?: boolean },
  options: { power?: number; docSide?: TermSide; paraphrase?: boolean } = {},
): Variant {
  const power = options.power ?? 0;
  return {
    name,
    prepare(docs) {
      const model: TermSpace = train.words
        ? trainWordSpace(docs, train)
        : trainTermSpace(docs, train);
      const side = train.cross ? "title" : "all";
      // Records are folded in once (the daemon would store these vectors with the model).
      const cache = new Map<string, Float32Array | null>();
      let lastQuery = "", q: Float32Array | null = null;
      return {
        size: `${model.columns.size} terms`,
        score(query, doc, id) {
          if (options.paraphrase) {
            // Only what differs: the prompt without the record's words and vice versa.
            const queryTerms = new Set(termTokens(query));
            const docTerms = new Set([
              ...termTokens(doc.title),
              ...termTokens(doc.summary),
              ...termTokens(doc.files.join(" ")),
            ]);
            const shared = new Set([...queryTerms].filter((t) => docTerms.has(t)));
            const q = embedTerms(model, { title: query, summary: "", files: [] }, {
              side,
              power,
              exclude: shared,
            });
            return termCosine(q, embedTerms(model, doc, { power, exclude: shared }));
          }
          if (query !== lastQuery) {
            lastQuery = query;
            q = embedTerms(model, { title: query, summary: "", files: [] }, { side, power });
          }
          if (!cache.has(id)) {
            cache.set(id, embedTerms(model, doc, { power, side: options.docSide }));
          }
          return termCosine(q, cache.get(id)!);
        },
      };
    },
  };
}

function translation(
  name: string,
  train: TrainTermTranslationOptions,
  score: { skipIdentity?: boolean; sum?: boolean },
): Variant {
  return {
    name,
    prepare(docs) {
      const model = trainTermTranslation(docs, train);
      return {
        size: `${model.table.size} title terms`,
        score: (query, doc) => translationScore(model, query, { doc, ...score }),
      };
    },
  };
}

function soft(
  name: string,
  train: TrainWordSpaceOptions & { words?: boolean },
  options: { power?: number; skipExact?: boolean },
): Variant {
  return {
    name,
    prepare(docs) {
      const model = train.words ? trainWordSpace(docs, train) : trainTermSpace(docs, train);
      return {
        size: `${model.columns.size} terms`,
        score: (query, doc) => softCoverage(model, query, { doc, ...options }),
      };
    },
  };
}

/** The shipped column ({@linkcode termSpaceColumn}), records folded in by their title. */
function column(name: string, train: TrainTermSpaceOptions): Variant {
  return {
    name,
    relative: true, // termSpaceColumn's own division, done here over the whole candidate list
    prepare(docs) {
      const model = trainTermSpace(docs, train);
      const cache = new Map<string, Float32Array | null>();
      return {
        size: `${model.columns.size} terms`,
        score(query, doc, id) {
          if (!cache.has(id)) cache.set(id, embedTerms(model, doc, { side: "title" }));
          const records = [cache.get(id)!];
          return termSpaceColumn(query, { space: model, records, relative: false })[0];
        },
      };
    },
  };
}

const VARIANTS: Variant[] = [
  column("column-lsa256", { dims: 256 }),
  column("column-lsa128", { dims: 128 }),
  soft("soft-ppmi128", { dims: 128, words: true }, { power: 0.5 }),
  soft("soft-ppmi128-noexact", { dims: 128, words: true }, { power: 0.5, skipExact: true }),
  soft("soft-lsa128-noexact", { dims: 128 }, { power: 1, skipExact: true }),
  space("lsa128", { dims: 128 }),
  space("lsa128-white", { dims: 128 }, { power: -1 }),
  space("lsa256-title", { dims: 256 }, { docSide: "title" }),
  space("lsa192", { dims: 192 }),
  space("ppmi128", { dims: 128, words: true }, { power: 0.5 }),
  space("ppmi256-para", { dims: 256, words: true }, { power: 0.5, paraphrase: true }),
  space("lsa256-para", { dims: 256 }, { paraphrase: true }),
  space("ppmi128-para", { dims: 128, words: true }, { power: 0.5, paraphrase: true }),
  space("ppmi256", { dims: 256, words: true }, { power: 0.5 }),
  space("ppmi256-title", { dims: 256, words: true }, { power: 0.5, docSide: "title" }),
  space("ppmi128-w10", { dims: 128, words: true, window: 10 }, { power: 0.5 }),
  space("ppmi128-p0", { dims: 128, words: true }, { power: 0 }),
  space("lsa128-title", { dims: 128 }, { docSide: "title" }),
  space("lsa384-title", { dims: 384 }, { docSide: "title" }),
  space("cross256-title", { dims: 256, cross: true }, { docSide: "title" }),
  space("lsa256", { dims: 256 }),
  space("lsa64", { dims: 64 }),
  space("cross128", { dims: 128, cross: true }),
  space("cross128-white", { dims: 128, cross: true }, { power: -1 }),
  space("cross256", { dims: 256, cross: true }),
  translation("tr-max", {}, {}),
  translation("tr-max-noid", {}, { skipIdentity: true }),
  translation("tr-sum", {}, { sum: true }),
  translation("tr-sum-noid", {}, { sum: true, skipIdentity: true }),
  translation("tr-files-max", { target: "files" }, {}),
  translation("tr-files-sum", { target: "files" }, { sum: true }),
];
for (const v of [...VARIANTS]) VARIANTS.push({ ...v, name: `${v.name}-rel`, relative: true });

/** The baseline samples with one more column per candidate. */
function withColumn(samples: readonly Sample[], column: readonly number[][]): Sample[] {
  return samples.map((s, k) => {
    const extra = column[k];
    return { ...s, features: s.features.map((f, i) => [...f, extra[i]]) };
  });
}

/**
 * Trains on `trainRepo`, prints the table, and returns the weights and which held-out queries
 * have their answer in the top 5 (to count, against the baseline, the queries a column wins
 * and loses: a paired comparison says more than two averages on 789 queries).
 */
function report(
  label: string,
  samples: readonly Sample[],
  trainRepo: string,
): { weights: number[]; hits: boolean[] } {
  const trainSet = samples.filter((s) => s.query.repo === trainRepo);
  const weights = train(trainSet, TRAIN_OPTIONS);
  printTable(label, table(samples, (s) => rank(s, weights).ids));
  const hits = samples.map((s) =>
    s.query.repo !== trainRepo &&
    rank(s, weights).ids.slice(0, 5).some((id) => s.query.relevant.includes(id))
  );
  return { weights, hits };
}

/**
 * Could the space find what BM25 misses? For the queries whose answer is not among the BM25
 * candidates, where the answer ranks when every record of the namespace is ordered by cosine.
 */
function coverage(records: readonly MemoryRecord[], samples: readonly Sample[], name: string) {
  const variant = VARIANTS.find((v) => v.name === name);
  if (variant === undefined) throw new Error(`no variant ${name}`);
  const missed = samples.filter((s) => !s.ids.some((id) => s.query.relevant.includes(id)));
  const found = [10, 20, 50, 100].map((k) => ({ k, n: 0 }));
  for (const namespace of new Set(records.map((r) => r.namespace))) {
    const pool = records.filter((r) => r.namespace === namespace);
    const { score } = variant.prepare(pool.map(recordSpaceDoc));
    for (const s of missed.filter((s) => s.query.namespace === namespace)) {
      const ranked = pool.map((r) => ({
        id: r.record_id,
        c: score(s.query.query, recordSpaceDoc(r), r.record_id),
      }))
        .sort((a, b) => b.c - a.c);
      const at = ranked.findIndex((x) => s.query.relevant.includes(x.id));
      for (const f of found) if (at >= 0 && at < f.k) f.n++;
    }
  }
  console.log(
    `${name}: of the ${missed.length} queries whose answer BM25 misses, the answer is in its ` +
      found.map((f) => `top ${f.k} for ${f.n}`).join(", "),
  );
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      data: { type: "string" },
      variants: { type: "string" },
      coverage: { type: "string" },
      "train-repo": { type: "string" },
    },
  });
  const set = await loadRealSet(values.data);
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-semantic-" });
  const storage = openSqliteStorage(`${dir}/train.db`);
  try {
    for (const record of set.records) await storage.putRecord(record);
    const samples = collect(storage, set.queries);
    const byId = new Map(set.records.map((r) => [r.record_id, r]));
    const trainRepo = values["train-repo"] ?? TRAIN_REPO;
    if (trainRepo !== TRAIN_REPO) console.log(`(trained on ${trainRepo} instead)`);
    const baseline = report("baseline", samples, trainRepo);
    if (values.coverage !== undefined) coverage(set.records, samples, values.coverage);
    // `a,b+c`: variant a alone, then b and c together (one column each).
    const specs = (values.variants ?? VARIANTS.map((v) => v.name).join(",")).split(",")
      .map((spec) => spec.split("+"));
    const columns = new Map<string, number[][]>();
    for (const name of new Set(specs.flat())) {
      const variant = VARIANTS.find((v) => v.name === name);
      if (variant === undefined) throw new Error(`no variant ${name}`);
      const scorers = new Map<string, Scorer>();
      const trainMs: string[] = [];
      for (const namespace of set.repos.keys()) {
        const docs = set.records.filter((r) => r.namespace === namespace).map(recordSpaceDoc);
        const started = performance.now();
        const prepared = variant.prepare(docs);
        scorers.set(namespace, prepared.score);
        trainMs.push(
          `${docs.length} records ${
            (performance.now() - started).toFixed(0)
          } ms (${prepared.size})`,
        );
      }
      const column = (s: Sample) => {
        const scorer = scorers.get(s.query.namespace)!;
        const values = s.ids.map((id) => scorer(s.query.query, recordSpaceDoc(byId.get(id)!), id));
        const max = Math.max(0, ...values);
        return variant.relative && max > 0 ? values.map((v) => v / max) : values;
      };
      // Query-time cost: the first pass over 200 prompts folds their candidates in (the cost a
      // store without cached record vectors pays), the second finds them cached.
      const timed = samples.slice(0, 200);
      let started = performance.now();
      timed.forEach(column);
      const queryMs = (performance.now() - started) / timed.length;
      started = performance.now();
      timed.forEach(column);
      const cachedMs = (performance.now() - started) / timed.length;
      console.log(
        `${variant.name}: train ${trainMs.join(", ")}; per prompt and its candidates ${
          queryMs.toFixed(2)
        } ms, ${cachedMs.toFixed(2)} ms with records cached`,
      );
      const values = samples.map(column);
      columns.set(name, values);
      printTable(
        `  feature alone`,
        table(samples.map((s, k) => ({ ...s, features: values[k].map((v) => [v]) })), (s) => {
          const c = s.features.map((f) => f[0]);
          return s.ids.map((id, i) => ({ id, c: c[i] })).sort((a, b) => b.c - a.c).map((x) => x.id);
        }),
      );
    }
    for (const spec of specs) {
      let extended = samples;
      for (const name of spec) {
        extended = withColumn(extended, columns.get(name)!);
      }
      const { weights, hits } = report(spec.join("+"), extended, trainRepo);
      const won = hits.filter((h, k) => h && !baseline.hits[k]).length;
      const lost = hits.filter((h, k) => !h && baseline.hits[k]).length;
      console.log(
        `  weights ${weights.slice(-spec.length).join(", ")}; held-out top 5: ` +
          `${won} queries won, ${lost} lost`,
      );
    }
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}
