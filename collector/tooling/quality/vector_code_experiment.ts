/**
 * The vector index's precisions against exact float32 search, on the real development set: the
 * same real use-lite vectors, stored in a real SQLite file, searched through `VectorIndex` at
 * `float32` (exact), `int8` and `bits` (sign codes, shortlist rescored with the stored vectors).
 *
 * For every query of the set it prints, per precision: `mode=vector` recall@5 and MRR@10 (k 10,
 * the model's similarity floor), how much of the exact top 10 it returns, the same best hit, the
 * hybrid search's vector side (k 40 with near-duplicate collapsing) against exact, and search
 * time; then reconciliation's neighbour search (each of `--neighbour-queries` records' own vector,
 * k `reconciliation.neighborPoolMax`, at least `reconciliation.neighborThreshold`): the share of
 * records whose neighbour set is exactly the exact one.
 *
 * ```sh
 * deno run -A collector/tooling/quality/vector_code_experiment.ts \
 *   [--data=../shared/quality/fixes-dev] [--cache=.bench/vector-code-vectors.bin]
 * ```
 *
 * Record and query vectors are cached (`--cache`, with the model id beside it) since embedding
 * the 10,000 texts takes about three minutes.
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { DEFAULTS } from "@kiro-learn/core/settings";
import { formatMs, summarize } from "@kiro-learn/core/testing";
import {
  composeEmbeddingInput,
  createUseLiteEmbedder,
  embeddingModelId,
  queryEmbeddingInput,
  type VectorHit,
  VectorIndex,
  type VectorPrecision,
} from "../../daemon/embedding/mod.ts";
import {
  DEFAULT_COLLAPSE_ABOVE,
  DEPTH_MULTIPLIER,
  minSimilarityFor,
} from "../../daemon/retrieval/mod.ts";
import {
  addRanking,
  averages,
  DEFAULT_REAL_SET_DIR,
  emptyScores,
  loadRealSet,
} from "./real_set.ts";
import { embedInBatches } from "./_embed_batches.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    data: { type: "string", default: DEFAULT_REAL_SET_DIR },
    cache: {
      type: "string",
      default: new URL("../../../.bench/vector-code-vectors.bin", import.meta.url).pathname,
    },
    "neighbour-queries": { type: "string", default: "2000" },
  },
});

const set = await loadRealSet(args.data);
const texts = [
  ...set.records.map(composeEmbeddingInput),
  ...set.queries.map((q) => queryEmbeddingInput(q.query)),
];

/** Every text's vector (records, then queries), from the cache when it matches. */
async function embedAll(): Promise<{ model: string; dim: number; vectors: Float32Array[] }> {
  try {
    const meta = JSON.parse(await Deno.readTextFile(`${args.cache}.json`));
    const bytes = await Deno.readFile(args.cache);
    if (meta.count === texts.length && bytes.byteLength === meta.count * meta.dim * 4) {
      const all = new Float32Array(bytes.buffer);
      return {
        model: meta.model,
        dim: meta.dim,
        vectors: texts.map((_, i) => all.slice(i * meta.dim, (i + 1) * meta.dim)),
      };
    }
  } catch {
    // No cache yet.
  }
  const embedder = await createUseLiteEmbedder({ sandbox: false, workers: 1 });
  try {
    const vectors = await embedInBatches(embedder, texts);
    const model = embeddingModelId(embedder.model_id);
    const all = new Float32Array(vectors.length * embedder.dim);
    vectors.forEach((v, i) => all.set(v, i * embedder.dim));
    await Deno.mkdir(join(args.cache, ".."), { recursive: true });
    await Deno.writeFile(args.cache, new Uint8Array(all.buffer));
    await Deno.writeTextFile(
      `${args.cache}.json`,
      JSON.stringify({ model, dim: embedder.dim, count: texts.length }),
    );
    return { model, dim: embedder.dim, vectors };
  } finally {
    await embedder.close();
  }
}

const { model, dim, vectors } = await embedAll();
const recordVectors = vectors.slice(0, set.records.length);
const queryVectors = vectors.slice(set.records.length);

const dir = await Deno.makeTempDir({ prefix: "kiro-learn-vector-code-" });
const storage = openSqliteStorage(join(dir, "experiment.db"));
try {
  for (let i = 0; i < set.records.length; i += 1_000) {
    await storage.commitExtraction({
      consumedSeqs: [],
      records: set.records.slice(i, i + 1_000).map((record, j) => ({
        record,
        embedding: { model, vector: recordVectors[i + j] },
      })),
    });
  }
  const precisions: VectorPrecision[] = ["float32", "int8", "bits"];
  const indexes = new Map(
    precisions.map((p) => [p, new VectorIndex(storage, { model, dim, precision: p })]),
  );
  for (const ns of new Set(set.records.map((r) => r.namespace))) {
    for (const index of indexes.values()) await index.load(ns);
  }
  const floor = minSimilarityFor(model);
  const depth = 10 * DEPTH_MULTIPLIER;
  const exact = indexes.get("float32")!;
  const exactTop = await Promise.all(
    set.queries.map((q, i) =>
      exact.search(q.namespace, queryVectors[i], { k: 10, minSimilarity: floor })
    ),
  );
  const exactHybrid: VectorHit[][] = [];
  for (const [i, q] of set.queries.entries()) {
    exactHybrid.push(
      await exact.search(q.namespace, queryVectors[i], {
        k: depth,
        minSimilarity: -1,
        collapseAbove: DEFAULT_COLLAPSE_ABOVE,
      }),
    );
  }
  const overlap = (a: readonly VectorHit[], b: readonly VectorHit[]) => {
    const ids = new Set(a.map((h) => h.record_id));
    return a.length === 0 ? 1 : b.filter((h) => ids.has(h.record_id)).length / a.length;
  };
  console.log(
    `${set.records.length} records, ${set.queries.length} queries, model ${model}, floor ${floor}`,
  );
  console.log(
    "| precision | recall@5 | MRR@10 | exact top-10 held | same top-1 | hybrid side (k 40, collapsed) vs exact | search p50 / p95 |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const [precision, index] of indexes) {
    const scores = emptyScores();
    let held = 0;
    let sameTop = 0;
    let hybridHeld = 0;
    const times: number[] = [];
    for (const [i, q] of set.queries.entries()) {
      const t = performance.now();
      const hits = await index.search(q.namespace, queryVectors[i], {
        k: 10,
        minSimilarity: floor,
      });
      times.push(performance.now() - t);
      addRanking(scores, hits.map((h) => h.record_id), { relevant: q.relevant });
      held += overlap(exactTop[i], hits);
      if (hits[0]?.record_id === exactTop[i][0]?.record_id) sameTop++;
      const side = await index.search(q.namespace, queryVectors[i], {
        k: depth,
        minSimilarity: -1,
        collapseAbove: DEFAULT_COLLAPSE_ABOVE,
      });
      hybridHeld += overlap(exactHybrid[i], side);
    }
    const a = averages(scores);
    const n = set.queries.length;
    const s = summarize(times);
    console.log(
      `| ${precision} (${(index.stats().bytes / 1024).toFixed(0)} KiB) | ${
        a.recall5.toFixed(3)
      } | ${a.mrr10.toFixed(3)} | ${(held / n).toFixed(4)} | ${(sameTop / n).toFixed(4)} | ${
        (hybridHeld / n).toFixed(4)
      } | ${formatMs(s.p50)} / ${formatMs(s.p95)} |`,
    );
  }
  const { neighborThreshold, neighborPoolMax } = DEFAULTS.reconciliation;
  const step = Math.max(1, Math.floor(set.records.length / Number(args["neighbour-queries"])));
  const sampled = set.records.map((r, i) => [r, i] as const).filter(([, i]) => i % step === 0);
  const neighbours = (index: VectorIndex, [r, i]: (typeof sampled)[number]) =>
    index.search(r.namespace, recordVectors[i], {
      k: neighborPoolMax,
      minSimilarity: neighborThreshold,
    });
  const reference = await Promise.all(sampled.map((s) => neighbours(exact, s)));
  const found = reference.reduce((n, hits) => n + hits.length, 0);
  for (const [precision, index] of indexes) {
    if (precision === "float32") continue;
    let same = 0;
    let missed = 0;
    let extra = 0;
    for (const [j, s] of sampled.entries()) {
      const hits = await neighbours(index, s);
      const want = new Set(reference[j].map((h) => h.record_id));
      const got = new Set(hits.map((h) => h.record_id));
      if (want.size === got.size && [...want].every((id) => got.has(id))) same++;
      missed += [...want].filter((id) => !got.has(id)).length;
      extra += [...got].filter((id) => !want.has(id)).length;
    }
    console.log(
      `neighbours (≥ ${neighborThreshold}, k ${neighborPoolMax}) of ${sampled.length} records ` +
        `(${found} exact neighbours in all): ${precision} same set for ${
          (same / sampled.length).toFixed(4)
        }, ${missed} missed, ${extra} extra`,
    );
  }
} finally {
  storage.close();
  await Deno.remove(dir, { recursive: true });
}
