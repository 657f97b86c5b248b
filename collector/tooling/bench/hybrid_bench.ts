/**
 * Hybrid retrieval latency: the collector's hybrid searcher (FTS5 BM25 at depth ×4, the
 * in-memory vector index, reciprocal-rank fusion, recency) over one namespace of 10k and 100k
 * records.
 *
 * ```sh
 * deno run -A collector/tooling/bench/hybrid_bench.ts           # 10k and 100k records, 200 queries each
 * deno run -A collector/tooling/bench/hybrid_bench.ts --quick   # 1k and 5k records, 50 queries each
 * deno run -A collector/tooling/bench/hybrid_bench.ts --out=/tmp/hybrid.json
 * ```
 *
 * - Records: the realistic generated corpus of `core/testing` (titles, 200–600 character
 *   summaries, facts), stored in a real SQLite file through `commitExtraction`.
 * - Record embeddings: random unit vectors of the use-lite dimension (512). Embedding 100k
 *   records with use-lite would take about an hour here, and the index's cost does not depend on
 *   the values: it is one dot product per record either way.
 * - Query embeddings: the real use-lite embedder when it loads (its latency is part of what the
 *   500 ms budget wraps), else random unit vectors (reported as such).
 * - The similarity floor is disabled (-1) so that every search takes the full fusion path — with
 *   random corpus vectors a floor would turn most searches into the cheaper lexical fallback.
 *
 * - Term space: the namespace's space is trained as the collector trains it (its Worker, the same
 *   document pages), timed, with the process's peak RSS meanwhile; the ranked search is then
 *   timed with it too (`ranked_space_ms`: the `term_space` column folds in every candidate).
 *
 * Reports, per size: the whole hybrid search including the query embedding, which the searcher
 * starts before the FTS query so the two overlap (`total`); the same search again with the
 * query's vector already known (`search`); and the query embedding alone (`embed`).
 * Prints one line per size and writes `.bench/hybrid.json` (`.bench/hybrid-quick.json` with
 * `--quick`, or the `--out` path).
 *
 * @module
 */
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import {
  corpusNamespace,
  createRng,
  formatMs,
  generateQueries,
  generateRecords,
  type LatencySummary,
  type Rng,
  round,
  summarize,
} from "@kiro-learn/core/testing";
import { type Embedder, queryEmbeddingInput } from "../../daemon/embedding/mod.ts";
import { createUseLiteEmbedder, USE_LITE_DIM } from "../../daemon/embedding/mod.ts";
import { COLLECTOR_VECTOR_PRECISION, VectorIndex } from "../../daemon/embedding/mod.ts";
import {
  createHybridSearcher,
  createSearcher,
  type HybridTrace,
} from "../../daemon/retrieval/mod.ts";
import { termSpaceDocPages, workerTrainer } from "../../daemon/term_spaces/mod.ts";
import { decodeTermSpace, type TermSpace } from "@kiro-learn/core/search";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Sizes and seeds of one run. */
export interface HybridBenchConfig {
  /** `quick` (smoke run) or `full`. */
  mode: "quick" | "full";
  /** Record counts, ascending, all in one namespace. */
  sizes: number[];
  /** Queries per size. */
  queries: number;
  /** Results per search (the retrieval default). */
  limit: number;
  /** Records per seeding transaction. */
  batchSize: number;
  /** Seed of every generator. */
  seed: number;
  /** JSON report path. */
  out: string;
}

/** Parses the command line. */
export function parseBenchArgs(args: string[]): HybridBenchConfig {
  const { values } = parseArgs({
    args,
    options: { quick: { type: "boolean", default: false }, out: { type: "string" } },
    strict: true,
    allowPositionals: false,
  });
  const quick = values.quick ?? false;
  return {
    mode: quick ? "quick" : "full",
    sizes: quick ? [1_000, 5_000] : [10_000, 100_000],
    queries: quick ? 50 : 200,
    limit: 10,
    batchSize: 1_000,
    seed: 20_250_602,
    out: values.out ?? join(REPO_ROOT, ".bench", quick ? "hybrid-quick.json" : "hybrid.json"),
  };
}

/** Figures of one size. */
export interface SizeReport {
  /** Records in the namespace. */
  records: number;
  /** Seconds to seed them (SQLite, with embeddings). */
  seed_s: number;
  /** Milliseconds to load the namespace into the vector index. */
  index_load_ms: number;
  /** Whole search including the query embedding. */
  total_ms: LatencySummary;
  /** Search given the query vector. */
  search_ms: LatencySummary;
  /** Query embedding alone. */
  embed_ms: LatencySummary;
  /** Searches that fused lexical and vector lists (the rest fell back to lexical). */
  fused: number;
  /** The default (ranked) search: BM25 candidates and the learned reranker, no embedding. */
  ranked_ms: LatencySummary;
  /** The same with the namespace's term space (what the collector runs once it is trained). */
  ranked_space_ms: LatencySummary;
  /** Seconds to train the term space in its Worker (reading the records included). */
  term_space_train_s: number;
  /** The process's RSS just before training (MiB; the embedder and vector index are loaded). */
  term_space_before_rss_mib: number;
  /** The process's peak RSS while training (MiB). */
  term_space_peak_rss_mib: number;
  /** The process's RSS after training, the Worker gone and the space held (MiB). */
  term_space_after_rss_mib: number;
  /** Size of the stored space (MiB) and its terms. */
  term_space_mib: number;
  /** Terms in the space. */
  term_space_terms: number;
}

/** The JSON report. */
export interface HybridBenchReport {
  /** Mode. */
  mode: "quick" | "full";
  /** When. */
  at: string;
  /** Machine. */
  machine: { cpus: number; model: string; memory_gib: number; deno: string };
  /** Where the vectors came from. */
  vectors: { corpus: string; queries: string; dim: number };
  /** Per size. */
  sizes: SizeReport[];
}

function randomUnit(rng: Rng, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    // Sum of uniforms: close enough to Gaussian for directions spread over the sphere.
    const x = rng.next() + rng.next() + rng.next() - 1.5;
    v[i] = x;
    n += x * x;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < dim; i++) v[i] /= n;
  return v;
}

async function seed(
  storage: SqliteStorage,
  options: { from: number; to: number; namespace: string; rng: Rng; config: HybridBenchConfig },
): Promise<void> {
  for (let start = options.from; start < options.to; start += options.config.batchSize) {
    const count = Math.min(options.config.batchSize, options.to - start);
    const records = generateRecords(count, {
      seed: options.config.seed + start,
      namespace: options.namespace,
      startIndex: start,
    });
    await storage.commitExtraction({
      consumedSeqs: [],
      records: records.map((record) => ({
        record,
        embedding: { model: "bench-random", vector: randomUnit(options.rng, USE_LITE_DIM) },
      })),
    });
  }
}

/** Runs the benchmark. */
export async function runHybridBench(config: HybridBenchConfig): Promise<HybridBenchReport> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-hybrid-bench-" });
  const path = join(dir, "bench.db");
  let storage = openSqliteStorage(path);
  const namespace = corpusNamespace("hybrid-bench");
  const rng = createRng(config.seed);
  let embedder: Embedder | null = null;
  let queriesFrom = "use-lite (real query embeddings)";
  try {
    try {
      embedder = await createUseLiteEmbedder({ sandbox: false });
    } catch (error) {
      queriesFrom = `random unit vectors (use-lite unavailable: ${String(error)})`;
    }
    const queries = generateQueries(config.queries, { seed: config.seed });
    const sizes: SizeReport[] = [];
    let stored = 0;
    for (const size of config.sizes) {
      const seeded = performance.now();
      await seed(storage, { from: stored, to: size, namespace, rng, config });
      stored = size;
      const seedS = (performance.now() - seeded) / 1000;
      // A fresh connection per size: the previous size's cached document frequencies would make
      // the lexical planner misjudge this size's postings.
      storage.close();
      storage = openSqliteStorage(path);
      const index = new VectorIndex(storage, {
        model: "bench-random",
        dim: USE_LITE_DIM,
        precision: COLLECTOR_VECTOR_PRECISION,
      });
      const loaded = performance.now();
      await index.load(namespace);
      const indexLoadMs = performance.now() - loaded;
      const traces: HybridTrace[] = [];
      // The searcher embeds the query itself (as in the collector, overlapping the FTS query);
      // `pinned` replays a vector already computed, to time the search alone.
      let pinned: Float32Array | null = null;
      let embedMs = 0;
      const embedQuery = async (text: string): Promise<Float32Array | null> => {
        if (pinned) return pinned;
        const started = performance.now();
        const vector = embedder
          ? (await embedder.embed([queryEmbeddingInput(text)]))[0]
          : randomUnit(rng, USE_LITE_DIM);
        embedMs = performance.now() - started;
        return vector;
      };
      let lastVector: Float32Array | null = null;
      const search = createHybridSearcher({
        searchLexical: (ns, q, o) => storage.searchLexical(ns, q, o),
        getRecords: (ids) => storage.getRecords(ids),
        embedQuery: async (text) => (lastVector = await embedQuery(text)),
        searchVectors: (ns, v, o) => index.search(ns, v, o),
      }, { minSimilarity: -1, embedTimeoutMs: 10_000, onSearch: (t) => traces.push(t) });
      const total: number[] = [];
      const searchOnly: number[] = [];
      const embed: number[] = [];
      // Warm-up: statement cache, df cache, JIT.
      for (const q of queries.slice(0, 5)) await search(namespace, q.text, { limit: config.limit });
      traces.length = 0;
      for (const q of queries) {
        pinned = null;
        let started = performance.now();
        await search(namespace, q.text, { limit: config.limit });
        total.push(performance.now() - started);
        embed.push(embedMs);
        pinned = lastVector;
        started = performance.now();
        await search(namespace, q.text, { limit: config.limit });
        searchOnly.push(performance.now() - started);
      }
      // What the prompt hook runs today: candidates and the reranker (no query embedding).
      const ranked = createSearcher({
        searchCandidates: (ns, q, o) => storage.searchCandidates(ns, q, o),
        searchLexical: (ns, q, o) => storage.searchLexical(ns, q, o),
      });
      const rankedMs = await timeSearches(ranked, { namespace, queries, limit: config.limit });
      const training = await trainSpace(storage, namespace);
      const withSpace = createSearcher({
        searchCandidates: (ns, q, o) => storage.searchCandidates(ns, q, o),
        searchLexical: (ns, q, o) => storage.searchLexical(ns, q, o),
        termSpace: () => training.space,
      });
      const spaceMs = await timeSearches(withSpace, { namespace, queries, limit: config.limit });
      const mib = (bytes: number) => round(bytes / 2 ** 20, 1);
      sizes.push({
        ranked_ms: roundSummary(summarize(rankedMs)),
        ranked_space_ms: roundSummary(summarize(spaceMs)),
        term_space_train_s: round(training.seconds, 1),
        term_space_before_rss_mib: mib(training.beforeRss),
        term_space_peak_rss_mib: mib(training.peakRss),
        term_space_after_rss_mib: mib(Deno.memoryUsage().rss),
        term_space_mib: mib(training.bytes),
        term_space_terms: training.space.columns.size,
        records: size,
        seed_s: round(seedS, 1),
        index_load_ms: round(indexLoadMs, 1),
        total_ms: roundSummary(summarize(total)),
        search_ms: roundSummary(summarize(searchOnly)),
        embed_ms: roundSummary(summarize(embed)),
        fused: traces.filter((t) => t.mode === "hybrid").length / 2,
      });
    }
    return {
      mode: config.mode,
      at: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model ?? "unknown",
        memory_gib: round(totalmem() / 2 ** 30, 1),
        deno: Deno.version.deno,
      },
      vectors: {
        corpus: `random unit vectors, ${USE_LITE_DIM}-d (latency only)`,
        queries: queriesFrom,
        dim: USE_LITE_DIM,
      },
      sizes,
    };
  } finally {
    await embedder?.close();
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Times each query once, after five warm-up searches. */
async function timeSearches(
  search: ReturnType<typeof createSearcher>,
  options: { namespace: string; queries: readonly { text: string }[]; limit: number },
): Promise<number[]> {
  const { namespace, queries, limit } = options;
  for (const q of queries.slice(0, 5)) await search(namespace, q.text, { limit });
  const out: number[] = [];
  for (const q of queries) {
    const started = performance.now();
    await search(namespace, q.text, { limit });
    out.push(performance.now() - started);
  }
  return out;
}

/** Trains the namespace's space as the collector does, sampling the process's RSS meanwhile. */
async function trainSpace(
  storage: SqliteStorage,
  namespace: string,
): Promise<
  { space: TermSpace; seconds: number; beforeRss: number; peakRss: number; bytes: number }
> {
  const beforeRss = Deno.memoryUsage().rss;
  let peakRss = beforeRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  try {
    const { data } = await workerTrainer()(termSpaceDocPages(storage, namespace));
    const space = decodeTermSpace(data);
    if (space === null) throw new Error("the trained space has another version");
    const seconds = (performance.now() - started) / 1000;
    return { space, seconds, beforeRss, peakRss, bytes: data.length };
  } finally {
    clearInterval(sampler);
  }
}

function roundSummary(s: LatencySummary): LatencySummary {
  return Object.fromEntries(
    Object.entries(s).map(([k, v]) => [k, k === "count" ? v : round(v, 2)]),
  ) as unknown as LatencySummary;
}

function label(n: number): string {
  return n >= 1000 ? `${n / 1000}k` : String(n);
}

/** The printed line of one size. */
export function sizeLine(s: SizeReport): string {
  return `ranked (default): ${label(s.records)} records  p50 ${formatMs(s.ranked_ms.p50)}  p95 ${
    formatMs(s.ranked_ms.p95)
  }\nranked with the term space: p50 ${formatMs(s.ranked_space_ms.p50)}  p95 ${
    formatMs(s.ranked_space_ms.p95)
  }  (trained in ${s.term_space_train_s} s, ${s.term_space_terms} terms, ${s.term_space_mib} MiB; ` +
    `process RSS ${s.term_space_before_rss_mib} MiB before, ${s.term_space_peak_rss_mib} MiB peak ` +
    `while training, ` +
    `${s.term_space_after_rss_mib} MiB after)\nhybrid: ${label(s.records)} records  p50 ${
      formatMs(s.total_ms.p50)
    }  p95 ${formatMs(s.total_ms.p95)}  (search p50 ${formatMs(s.search_ms.p50)} / p95 ${
      formatMs(s.search_ms.p95)
    }, ` +
    `query embed p50 ${formatMs(s.embed_ms.p50)} / p95 ${formatMs(s.embed_ms.p95)}; ` +
    `${s.fused}/${s.total_ms.count} fused; index load ${formatMs(s.index_load_ms)})`;
}

if (import.meta.main) {
  const config = parseBenchArgs(Deno.args);
  const report = await runHybridBench(config);
  console.log(
    `hybrid: corpus vectors: ${report.vectors.corpus}; queries: ${report.vectors.queries}`,
  );
  for (const s of report.sizes) console.log(sizeLine(s));
  await Deno.mkdir(dirname(config.out), { recursive: true });
  await Deno.writeTextFile(config.out, JSON.stringify(report, null, 2) + "\n");
}
