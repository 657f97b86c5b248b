/**
 * Embedding benchmark: embeddings per second for short (~100 chars) and long (~1,000 chars)
 * texts for each backend, single-query embedding latency, brute-force vector search p50/p95 at
 * 10k and 100k vectors (384-d and 512-d), and the idle daemon's RSS with the embedder loaded
 * (and with `embedding.backend: "off"`, for the difference).
 *
 * The onnx figures use the model installed in the data dir (`kiro-learn models add`), or the
 * one given with `--onnx-model=<dir>`; without one they come from the tiny generated test model
 * and are labelled NOT representative (it has 16 tokens and 8 dimensions).
 *
 * Run: `deno run -A collector/tooling/bench/embedding_bench.ts [--quick] [--out=PATH]
 * [--onnx-model=DIR]`. Figures go to stdout and to `.bench/embedding.json`
 * (`embedding-quick.json` with `--quick`).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dataDir as defaultDataDir } from "@kiro-learn/core/settings";
import {
  corpusNamespace,
  createRng,
  formatMs,
  generateRecords,
  type LatencySummary,
  summarize,
} from "@kiro-learn/core/testing";
import { composeEmbeddingInput, type Embedder } from "../../daemon/embedding/mod.ts";
import { installedModel, onnxModelId } from "../../daemon/embedding/mod.ts";
import { createOnnxEmbedder } from "../../daemon/embedding/mod.ts";
import { writeTinyModel } from "../testing/mod.ts";
import { createUseLiteEmbedder } from "../../daemon/embedding/mod.ts";
import { l2NormalizeInPlace } from "@kiro-learn/core/search";
import { COLLECTOR_VECTOR_PRECISION, VectorIndex } from "../../daemon/embedding/mod.ts";
import { processMemoryKib, startTestDaemon } from "../testing/mod.ts";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** What one run measures. */
export interface EmbeddingBenchConfig {
  /** `quick` (small sizes, for tests) or `full`. */
  mode: "quick" | "full";
  /** Short texts embedded per backend. */
  shortTexts: number;
  /** Long texts embedded per backend. */
  longTexts: number;
  /** Single-text query embeddings timed per backend. */
  queries: number;
  /** Index sizes searched. */
  indexSizes: number[];
  /** Searches per size. */
  searches: number;
  /** Where the JSON goes. */
  out: string;
  /** A real ONNX model folder to time (default: the data dir's installed model, if any). */
  onnxModel?: string;
}

/** Parses the command line (`--quick`, `--out=PATH`, `--onnx-model=DIR`). */
export function parseBenchArgs(args: readonly string[]): EmbeddingBenchConfig {
  let quick = false;
  let out: string | undefined;
  let onnxModel: string | undefined;
  for (const arg of args) {
    if (arg === "--quick") quick = true;
    else if (arg.startsWith("--out=")) out = arg.slice("--out=".length);
    else if (arg.startsWith("--onnx-model=")) onnxModel = arg.slice("--onnx-model=".length);
    else {
      throw new Error(
        `unknown argument ${arg}; usage: embedding_bench.ts [--quick] [--out=PATH] ` +
          `[--onnx-model=DIR]`,
      );
    }
  }
  return {
    mode: quick ? "quick" : "full",
    shortTexts: quick ? 24 : 200,
    longTexts: quick ? 8 : 40,
    queries: quick ? 10 : 50,
    indexSizes: quick ? [1_000, 10_000] : [10_000, 100_000],
    searches: quick ? 30 : 200,
    out: out ?? join(REPO_ROOT, ".bench", quick ? "embedding-quick.json" : "embedding.json"),
    onnxModel,
  };
}

/** Memory-record-shaped texts of about `chars` characters (from the synthetic corpus). */
export function benchTexts(count: number, chars: number, seed: number): string[] {
  const records = generateRecords(count * 4, { seed, namespace: corpusNamespace("embedding") });
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = "";
    for (let j = i * 4; text.length < chars; j = (j + 1) % records.length) {
      text += (text ? "\n\n" : "") + composeEmbeddingInput(records[j]);
    }
    texts.push(text.slice(0, chars));
  }
  return texts;
}

interface BackendFigures {
  backend: string;
  model_id: string;
  representative: boolean;
  load_ms: number;
  short_per_s: number;
  long_per_s: number;
  query_ms: LatencySummary;
}

/** Embeds in chunks of 4, as the service's background work does. */
async function throughput(embedder: Embedder, texts: string[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < texts.length; i += 4) await embedder.embed(texts.slice(i, i + 4));
  return texts.length / ((performance.now() - started) / 1000);
}

async function timeBackend(
  backend: string,
  start: () => Promise<Embedder>,
  config: EmbeddingBenchConfig,
  representative: boolean,
): Promise<BackendFigures> {
  const t0 = performance.now();
  const embedder = await start();
  const loadMs = performance.now() - t0;
  try {
    await embedder.embed(["warm-up text for the benchmark"]);
    const short = benchTexts(config.shortTexts, 100, 1);
    const long = benchTexts(config.longTexts, 1_000, 2);
    const shortPerS = await throughput(embedder, short);
    const longPerS = await throughput(embedder, long);
    const samples: number[] = [];
    for (const q of benchTexts(config.queries, 60, 3)) {
      const t = performance.now();
      await embedder.embed([q]);
      samples.push(performance.now() - t);
    }
    return {
      backend,
      model_id: embedder.model_id,
      representative,
      load_ms: loadMs,
      short_per_s: shortPerS,
      long_per_s: longPerS,
      query_ms: summarize(samples),
    };
  } finally {
    await embedder.close();
  }
}

async function onnxFigures(config: EmbeddingBenchConfig): Promise<BackendFigures> {
  let dir = config.onnxModel;
  let modelId = dir ? onnxModelId(dir.split("/").filter(Boolean).at(-1) ?? "model", "given") : "";
  if (!dir) {
    try {
      const installed = await installedModel(defaultDataDir(Deno.env.toObject()));
      dir = installed.dir;
      modelId = installed.model_id;
    } catch {
      // No real model here: fall back to the generated one, labelled as such.
    }
  }
  if (dir) {
    return await timeBackend(
      "onnx",
      () => createOnnxEmbedder({ modelDir: dir, modelId }),
      config,
      true,
    );
  }
  const tiny = await Deno.makeTempDir({ prefix: "kiro-learn-bench-tiny-" });
  try {
    await writeTinyModel(tiny, { dim: 8 });
    return await timeBackend(
      "onnx",
      () => createOnnxEmbedder({ modelDir: tiny, modelId: "onnx:tiny-generated" }),
      config,
      false,
    );
  } finally {
    await Deno.remove(tiny, { recursive: true });
  }
}

interface SearchFigures {
  vectors: number;
  dim: number;
  k: number;
  build_ms: number;
  latency_ms: LatencySummary;
}

async function searchFigures(
  size: number,
  dim: number,
  config: EmbeddingBenchConfig,
): Promise<SearchFigures> {
  const rng = createRng(size * 31 + dim);
  const randomUnit = () => {
    const v = new Float32Array(dim);
    for (let d = 0; d < dim; d++) v[d] = rng.next() * 2 - 1;
    return l2NormalizeInPlace(v);
  };
  const rows = Array.from({ length: size }, (_, i) => ({
    record_id: `mr_${String(i).padStart(8, "0")}`,
    vector: randomUnit(),
  }));
  const byId = new Map(rows.map((row) => [row.record_id, row.vector]));
  // The collector's `bits` index rescores from storage; here the rows are the storage. Copies,
  // since the index frees what it is given.
  const source = {
    listEmbeddings: () => Promise.resolve(rows),
    getEmbeddings: (_: string, o: { recordIds: readonly string[] }) =>
      Promise.resolve(o.recordIds.map((id) => ({ record_id: id, vector: byId.get(id)!.slice() }))),
  };
  const index = new VectorIndex(source, {
    model: "bench",
    dim,
    precision: COLLECTOR_VECTOR_PRECISION,
  });
  const t0 = performance.now();
  await index.load("ns");
  const buildMs = performance.now() - t0;
  const k = 40; // limit 10 × the hybrid depth multiplier 4
  const samples: number[] = [];
  for (let i = 0; i < config.searches; i++) {
    const q = randomUnit();
    const t = performance.now();
    await index.searchLoaded("ns", q, { k, minSimilarity: -1 });
    samples.push(performance.now() - t);
  }
  return { vectors: size, dim, k, build_ms: buildMs, latency_ms: summarize(samples) };
}

async function idleRss(backend: "use-lite" | "off"): Promise<{ backend: string; rss_kib: number }> {
  await using daemon = await startTestDaemon({ settings: { embedding: { backend } } });
  for (let i = 0; i < 600; i++) {
    const res = await daemon.fetch("/v1/stats");
    const state = (await res.json()).embedding?.state;
    if (state === (backend === "off" ? "off" : "ready")) break;
    if (state === "failed") throw new Error("the embedder failed to load in the daemon");
    await new Promise((r) => setTimeout(r, 50));
  }
  // Idle: let start-up garbage settle before reading the resident set.
  await new Promise((r) => setTimeout(r, 1_500));
  return { backend, rss_kib: processMemoryKib(daemon.pid(), "VmRSS") };
}

function rate(n: number): string {
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

async function main(): Promise<void> {
  const config = parseBenchArgs(Deno.args);
  const backends: BackendFigures[] = [];
  // In-process Worker without the daemon's sandbox (the bench runs without
  // --unstable-worker-options); same code and model as in the daemon.
  backends.push(
    await timeBackend("use-lite", () => createUseLiteEmbedder({ sandbox: false }), config, true),
  );
  backends.push(await onnxFigures(config));
  for (const b of backends) {
    const note = b.representative ? "" : "  (tiny generated test model: NOT representative)";
    console.log(
      `embedding: ${b.backend} ${b.model_id}  short ~100 chars ${rate(b.short_per_s)}/s  ` +
        `long ~1,000 chars ${rate(b.long_per_s)}/s  query p50 ${formatMs(b.query_ms.p50)} ` +
        `p95 ${formatMs(b.query_ms.p95)}  load ${formatMs(b.load_ms)}${note}`,
    );
  }
  const searches: SearchFigures[] = [];
  for (const dim of [384, 512]) {
    for (const size of config.indexSizes) {
      const s = await searchFigures(size, dim, config);
      searches.push(s);
      console.log(
        `embedding: vector search ${size / 1000}k × ${dim}-d (k ${s.k})  p50 ` +
          `${formatMs(s.latency_ms.p50)}  p95 ${formatMs(s.latency_ms.p95)}  ` +
          `max ${formatMs(s.latency_ms.max)}`,
      );
    }
  }
  const rss = [await idleRss("use-lite"), await idleRss("off")];
  const [loaded, off] = rss;
  console.log(
    `embedding: idle daemon RSS with use-lite loaded ${(loaded.rss_kib / 1024).toFixed(0)} MiB  ` +
      `(backend off: ${(off.rss_kib / 1024).toFixed(0)} MiB, ` +
      `×${(loaded.rss_kib / off.rss_kib).toFixed(1)})`,
  );
  const report = {
    mode: config.mode,
    at: new Date().toISOString(),
    deno: Deno.version.deno,
    cpus: navigator.hardwareConcurrency,
    backends,
    vector_search: searches,
    idle_rss: rss,
  };
  await Deno.mkdir(dirname(config.out), { recursive: true });
  await Deno.writeTextFile(config.out, JSON.stringify(report, null, 2) + "\n");
  console.log(`embedding: wrote ${config.out}`);
}

if (import.meta.main) await main();
