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
  termCosine,
  type TermSpace,
  type TermSpaceDoc,
  trainTermSpace,
  type TrainTermSpaceOptions,
} from "@kiro-learn/core/search";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { loadRealSet, TRAIN_REPO } from "./real_set.ts";
import { collect, printTable, rank, type Sample, table, train } from "./train_rerank.ts";

interface Variant {
  name: string;
  train: TrainTermSpaceOptions;
  /** σ exponent of the fold-in. */
  power: number;
}

const VARIANTS: Variant[] = [
  { name: "lsa128", train: { dims: 128 }, power: 0 },
  { name: "lsa128-white", train: { dims: 128 }, power: -1 },
  { name: "lsa256", train: { dims: 256 }, power: 0 },
  { name: "lsa64", train: { dims: 64 }, power: 0 },
  { name: "cross128", train: { dims: 128, cross: true }, power: 0 },
  { name: "cross128-white", train: { dims: 128, cross: true }, power: -1 },
  { name: "cross256", train: { dims: 256, cross: true }, power: 0 },
];

function docOf(record: MemoryRecord): TermSpaceDoc {
  return {
    title: record.title,
    summary: `${record.summary} ${record.facts.join(" ")}`,
    files: record.files_touched,
  };
}

/** The baseline samples with one more column per candidate. */
function withColumn(samples: readonly Sample[], column: (s: Sample) => number[]): Sample[] {
  return samples.map((s) => {
    const extra = column(s);
    return { ...s, features: s.features.map((f, i) => [...f, extra[i]]) };
  });
}

function report(label: string, samples: readonly Sample[]): number[] {
  const trainSet = samples.filter((s) => s.query.repo === TRAIN_REPO);
  const weights = train(trainSet, { epochs: 300, l2: 1e-3 });
  printTable(label, table(samples, (s) => rank(s, weights).ids));
  return weights;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { data: { type: "string" }, variants: { type: "string" } },
  });
  const set = await loadRealSet(values.data);
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-semantic-" });
  const storage = openSqliteStorage(`${dir}/train.db`);
  try {
    for (const record of set.records) await storage.putRecord(record);
    const samples = collect(storage, set.queries);
    const byId = new Map(set.records.map((r) => [r.record_id, r]));
    report("baseline", samples);
    const wanted = values.variants?.split(",");
    for (const variant of VARIANTS.filter((v) => !wanted || wanted.includes(v.name))) {
      const spaces = new Map<string, TermSpace>();
      const trainMs: string[] = [];
      for (const namespace of set.repos.keys()) {
        const docs = set.records.filter((r) => r.namespace === namespace).map(docOf);
        const started = performance.now();
        spaces.set(namespace, trainTermSpace(docs, variant.train));
        trainMs.push(
          `${docs.length} records ${(performance.now() - started).toFixed(0)} ms ` +
            `(${spaces.get(namespace)!.columns.size} terms)`,
        );
      }
      const side = variant.train.cross ? "title" : "all";
      const cache = new Map<string, Float32Array | null>();
      const docVector = (space: TermSpace, id: string) => {
        if (!cache.has(id)) cache.set(id, embedTerms(space, docOf(byId.get(id)!), variant));
        return cache.get(id)!;
      };
      // Query-time cost, measured without the cache: the prompt and 50 records folded in.
      let queryMs = 0;
      const timed = samples.slice(0, 200);
      for (const s of timed) {
        const space = spaces.get(s.query.namespace)!;
        const started = performance.now();
        const q = embedTerms(space, { title: s.query.query, summary: "", files: [] }, {
          side,
          power: variant.power,
        });
        for (const id of s.ids) termCosine(q, embedTerms(space, docOf(byId.get(id)!), variant));
        queryMs += performance.now() - started;
      }
      const cosines = (s: Sample) => {
        const space = spaces.get(s.query.namespace)!;
        const q = embedTerms(space, { title: s.query.query, summary: "", files: [] }, {
          side,
          power: variant.power,
        });
        return s.ids.map((id) => termCosine(q, docVector(space, id)));
      };
      console.log(
        `${variant.name}: train ${trainMs.join(", ")}; query ${
          (queryMs / timed.length).toFixed(2)
        } ms per prompt and 50 candidates`,
      );
      const extended = withColumn(samples, cosines);
      printTable(
        `  cosine alone`,
        table(extended, (s) => {
          const c = s.features.map((f) => f[f.length - 1]);
          return s.ids.map((id, i) => ({ id, c: c[i] })).sort((a, b) => b.c - a.c).map((x) =>
            x.id
          );
        }),
      );
      const weights = report(`  reranked + cosine`, extended);
      console.log(`  cosine weight ${weights[weights.length - 1]}`);
    }
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}
