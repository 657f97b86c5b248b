/**
 * Memory benchmark: the idle collector's resident set (RSS) with a large store and the use-lite
 * embedder loaded — before any vector search, once a first query has been embedded (no vectors
 * are loaded), after `mode=vector` searches have loaded every namespace's vectors into the index
 * (what reconciliation's neighbour search and `mode=vector` hold until `embedding.vectorIdleMs`
 * passes without a vector search), and once they have been unloaded after that idle time (set
 * just past the quiet time here). A model Worker whose memory grew is replaced 1 s after the
 * last embedding here (`embedding.workerIdleRecycleMs`). Each moment is read 3 s after the last
 * work and again after 35 s of quiet (the idle figure: V8 collects an idle heap about 30 s after
 * a burst; `--quick` reads at 3 s).
 *
 * The store is built from the real records of the development set (`../shared/quality/fixes-dev`),
 * cycled with fresh ids up to `--records` (default 100,000; the texts repeat, which is fine for a
 * memory figure and not used for any quality figure). Every record gets a real use-lite vector of
 * the current input version: `--vectors` distinct records (default 2,000) are embedded and their
 * vectors reused round-robin, since embedding 100k texts would take the benchmark most of an hour.
 *
 * Run: `deno run -A collector/tooling/quality/memory_bench.ts [--quick] [--records=N] [--vectors=N]
 * [--data=DIR] [--out=PATH]`. Figures go to stdout and to `.bench/memory.json`
 * (`memory-quick.json` with `--quick`).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { newRecordId } from "@kiro-learn/core/ids";
import { dot, GATE_MIN_CORPUS, unitOrZero } from "@kiro-learn/core/search";
import {
  COLLECTOR_VECTOR_PRECISION,
  composeEmbeddingInput,
  createUseLiteEmbedder,
  type Embedder,
  embeddingModelId,
  queryEmbeddingInput,
  VectorIndex,
  type VectorPrecision,
} from "../../daemon/embedding/mod.ts";
import { processMemoryKib, startTestDaemon, type TestDaemon, waitFor } from "../testing/mod.ts";
import { DEFAULT_REAL_SET_DIR, loadRealSet, type RealQuery } from "./real_set.ts";
import { waitForTermSpaces } from "./real_bench.ts";
import { countArg } from "./_bench_args.ts";
import { embedInBatches } from "./_embed_batches.ts";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** What one run measures. */
export interface MemoryBenchConfig {
  /** `quick` (small sizes, for tests) or `full`. */
  mode: "quick" | "full";
  /** Records in the store. */
  records: number;
  /** Distinct records embedded (their vectors are reused round-robin). */
  vectors: number;
  /** The development set's folder. */
  data: string;
  /** Where the JSON goes. */
  out: string;
  /**
   * How long each moment is left quiet before its "idle" reading: V8 gives an idle heap back
   * about 30 s after the last burst, so a reading 3 s after it still holds uncollected garbage.
   */
  quietMs: number;
}

/** Quiet time before a reading: 3 s (the "soon" reading), then up to {@linkcode IDLE_QUIET_MS}. */
const SOON_MS = 3_000;

/** Quiet time before the idle reading of a full run. */
const IDLE_QUIET_MS = 35_000;

/**
 * `embedding.workerIdleRecycleMs` here: a model Worker grown by an embedding is replaced 1 s
 * after the last one (the default waits 2 min), so every moment's readings are of the idle
 * collector the setting leaves, not of the time before it acts. The fresh Worker's load is
 * over within a second, before the 3 s reading.
 */
const WORKER_IDLE_RECYCLE_MS = 1_000;

/** Parses the command line (`--quick`, `--records=N`, `--vectors=N`, `--data=DIR`, `--out=PATH`). */
export function parseMemoryArgs(args: readonly string[]): MemoryBenchConfig {
  let quick = false;
  let records: number | undefined;
  let vectors: number | undefined;
  let data = DEFAULT_REAL_SET_DIR;
  let out: string | undefined;
  for (const arg of args) {
    if (arg === "--quick") quick = true;
    else if (arg.startsWith("--records=")) records = countArg(arg, "--records=");
    else if (arg.startsWith("--vectors=")) vectors = countArg(arg, "--vectors=");
    else if (arg.startsWith("--data=")) data = arg.slice("--data=".length);
    else if (arg.startsWith("--out=")) out = arg.slice("--out=".length);
    else {
      throw new Error(
        `unknown argument ${arg}; usage: memory_bench.ts [--quick] [--records=N] [--vectors=N] ` +
          `[--data=DIR] [--out=PATH]`,
      );
    }
  }
  return {
    mode: quick ? "quick" : "full",
    records: records ?? (quick ? 2_000 : 100_000),
    vectors: vectors ?? (quick ? 32 : 2_000),
    data,
    out: out ?? join(REPO_ROOT, ".bench", quick ? "memory-quick.json" : "memory.json"),
    quietMs: quick ? SOON_MS : IDLE_QUIET_MS,
  };
}

/**
 * `count` records cycled from `source` with fresh ids (the first pass keeps the originals'), in
 * their original namespaces.
 */
export function cycleRecords(source: readonly MemoryRecord[], count: number): MemoryRecord[] {
  const out: MemoryRecord[] = [];
  for (let i = 0; i < count; i++) {
    const r = source[i % source.length];
    out.push(i < source.length ? r : { ...r, record_id: newRecordId() });
  }
  return out;
}

/** Queries whose answers are all among the embedded records, at most this many. */
const OVERLAP_QUERIES = 300;

/** How much the collector's index changes rankings, on real records and real queries. */
export interface QuantizationFigures {
  /** Queries asked. */
  queries: number;
  /** Records searched. */
  records: number;
  /** Mean share of the float32 top 10 that the collector index's top 10 also holds. */
  top10_overlap: number;
  /** Share of queries whose best hit is the same record. */
  top1_same: number;
  /** Largest difference of a returned similarity. */
  max_similarity_error: number;
}

/**
 * Top-10 overlap of the collector's (`COLLECTOR_VECTOR_PRECISION`) and the float32 index over the
 * same real vectors, for real queries
 * (embedded with `embedder`), each searched in its own namespace.
 */
export async function quantizationOverlap(
  rows: { record: MemoryRecord; vector: Float32Array }[],
  options: { queries: readonly RealQuery[]; embedder: Embedder },
): Promise<QuantizationFigures> {
  const byNamespace = (ns: string) =>
    rows.filter((r) => r.record.namespace === ns).map((r) => ({
      record_id: r.record.record_id,
      vector: r.vector,
    }));
  const byId = new Map(rows.map((r) => [r.record.record_id, r]));
  const source = {
    listEmbeddings: (ns: string) => Promise.resolve(byNamespace(ns)),
    // What the `bits` index rescores with (copies: the index frees what it is given).
    getEmbeddings: (ns: string, o: { recordIds: readonly string[] }) =>
      Promise.resolve(o.recordIds.flatMap((id) => {
        const row = byId.get(id);
        return row?.record.namespace === ns ? [{ record_id: id, vector: row.vector.slice() }] : [];
      })),
  };
  const open = (precision: VectorPrecision) =>
    new VectorIndex(source, { model: "bench", dim: rows[0].vector.length, precision });
  const exact = open("float32");
  const held = open(COLLECTOR_VECTOR_PRECISION);
  const namespaces = new Set(rows.map((r) => r.record.namespace));
  const asked = options.queries.filter((q) => namespaces.has(q.namespace))
    .slice(0, OVERLAP_QUERIES);
  let overlap = 0;
  let same = 0;
  let maxError = 0;
  const vectors = await embedInBatches(
    options.embedder,
    asked.map((q) => queryEmbeddingInput(q.query)),
  );
  for (const [j, q] of asked.entries()) {
    const query = unitOrZero(vectors[j]);
    const a = await exact.search(q.namespace, vectors[j], { k: 10 });
    const b = await held.search(q.namespace, vectors[j], { k: 10 });
    const ids = new Set(a.map((h) => h.record_id));
    overlap += b.filter((h) => ids.has(h.record_id)).length / Math.max(1, a.length);
    if (a[0]?.record_id === b[0]?.record_id) same++;
    for (const hit of b) {
      const sim = dot(exact.vector(hit.record_id)!, query);
      maxError = Math.max(maxError, Math.abs(sim - hit.similarity));
    }
  }
  return {
    queries: asked.length,
    records: rows.length,
    top10_overlap: overlap / Math.max(1, asked.length),
    top1_same: same / Math.max(1, asked.length),
    max_similarity_error: maxError,
  };
}

async function buildStore(
  dbPath: string,
  config: MemoryBenchConfig,
): Promise<{ namespaces: string[]; trainable: string[]; quantization: QuantizationFigures }> {
  const set = await loadRealSet(config.data);
  const records = cycleRecords(set.records, config.records);
  const distinct = records.slice(0, Math.min(config.vectors, set.records.length));
  const embedder = await createUseLiteEmbedder({ sandbox: false });
  const vectors: Float32Array[] = [];
  let quantization: QuantizationFigures;
  try {
    vectors.push(...await embedInBatches(embedder, distinct.map(composeEmbeddingInput)));
    quantization = await quantizationOverlap(
      distinct.map((record, i) => ({ record, vector: vectors[i] })),
      { queries: set.queries, embedder },
    );
  } finally {
    await embedder.close();
  }
  const model = embeddingModelId(embedder.model_id);
  const storage = openSqliteStorage(dbPath);
  try {
    for (let i = 0; i < records.length; i += 2_000) {
      await storage.commitExtraction({
        consumedSeqs: [],
        records: records.slice(i, i + 2_000).map((record, j) => ({
          record,
          embedding: { model, vector: vectors[(i + j) % vectors.length] },
        })),
      });
    }
  } finally {
    storage.close();
  }
  const sizes = new Map<string, number>();
  for (const r of records) sizes.set(r.namespace, (sizes.get(r.namespace) ?? 0) + 1);
  return {
    namespaces: [...sizes.keys()],
    // Only these get a term space (a small --quick store gets none).
    trainable: [...sizes].filter(([, n]) => n >= GATE_MIN_CORPUS).map(([ns]) => ns),
    quantization,
  };
}

async function stats(daemon: TestDaemon): Promise<Record<string, unknown>> {
  const res = await daemon.fetch("/v1/stats");
  if (!res.ok) throw new Error(`/v1/stats answered ${res.status}`);
  return await res.json();
}

/** What this bench reads of `/v1/stats` `embedding`. */
interface EmbeddingStats {
  state: string;
  error?: string;
  backfill?: { state: string; pending: number } | null;
  index: { vectors: number; bytes: number };
}

async function embeddingStats(daemon: TestDaemon): Promise<EmbeddingStats> {
  return (await stats(daemon)).embedding as EmbeddingStats;
}

/** Waits until the embedder is ready and the backfill has nothing left to do. */
async function waitIdle(daemon: TestDaemon): Promise<void> {
  await waitFor(async () => {
    const e = await embeddingStats(daemon);
    if (e?.state === "failed") throw new Error(`the embedder failed to load: ${e.error}`);
    return e?.state === "ready" && e.backfill?.state === "idle" && e.backfill.pending === 0
      ? true
      : undefined;
  }, { timeoutMs: 10 * 60_000, intervalMs: 200, what: "the daemon to become idle" });
}

async function search(daemon: TestDaemon, namespace: string, mode: "ranked" | "vector") {
  const q = new URLSearchParams({ namespace, query: "fix a crash", mode });
  const res = await daemon.fetch(`/v1/memories/search?${q}`);
  if (!res.ok) throw new Error(`${mode} search answered ${res.status}: ${await res.text()}`);
  await res.body?.cancel();
}

/** The resident set 3 s after the last work, and after `quietMs` of quiet. */
async function settledRss(
  daemon: TestDaemon,
  quietMs: number,
): Promise<{ soon: number; idle: number }> {
  await new Promise((r) => setTimeout(r, SOON_MS));
  const soon = await processMemoryKib(daemon.pid(), "VmRSS");
  if (quietMs <= SOON_MS) return { soon, idle: soon };
  await new Promise((r) => setTimeout(r, quietMs - SOON_MS));
  return { soon, idle: await processMemoryKib(daemon.pid(), "VmRSS") };
}

/** Where the collector's memory is at one moment (bytes but RSS, from its `/v1/stats`). */
interface MemoryPhase {
  moment: string;
  /** After the configured quiet time. */
  rss_kib: number;
  /** 3 s after the last work. */
  rss_soon_kib: number;
  heap_total: number;
  heap_used: number;
  external: number;
}

async function phase(daemon: TestDaemon, moment: string, quietMs: number): Promise<MemoryPhase> {
  const rss = await settledRss(daemon, quietMs);
  const m = (await stats(daemon)).memory as Omit<
    MemoryPhase,
    "moment" | "rss_kib" | "rss_soon_kib"
  >;
  return {
    moment,
    rss_kib: rss.idle,
    rss_soon_kib: rss.soon,
    heap_total: m.heap_total,
    heap_used: m.heap_used,
    external: m.external,
  };
}

/** How long past the quiet time the bench's vectors stay loaded (see `measure`). */
const VECTOR_IDLE_MARGIN_MS = 45_000;

interface MemoryFigures {
  records: number;
  namespaces: number;
  rss_idle_kib: number;
  rss_index_loaded_kib: number;
  phases: MemoryPhase[];
  index: { vectors: number; bytes: number };
  db_bytes: number;
  quantization: QuantizationFigures;
}

async function measure(config: MemoryBenchConfig): Promise<MemoryFigures> {
  const dataDir = await Deno.makeTempDir({ prefix: "kiro-learn-memory-bench-" });
  try {
    const { namespaces, trainable, quantization } = await buildStore(
      join(dataDir, "kiro-learn.db"),
      config,
    );
    // Vectors unused this long leave memory: set well past the quiet time, so the "vectors
    // loaded" moment is read before, and the last moment after, they go. The margin covers the
    // searches of every namespace and the reading itself on a loaded machine (15 s was missed at
    // load ~20); it costs only that much longer a wait for the last reading.
    const vectorIdleMs = config.quietMs + VECTOR_IDLE_MARGIN_MS;
    await using daemon = await startTestDaemon({
      dataDir,
      settings: {
        embedding: {
          backend: "use-lite",
          vectorIdleMs,
          workerIdleRecycleMs: WORKER_IDLE_RECYCLE_MS,
        },
      },
    });
    await waitIdle(daemon);
    const phases = [await phase(daemon, "embedder loaded, before any search", config.quietMs)];
    // A ranked search (what every hook asks) has each namespace's term space trained and held,
    // as a collector in use has them: idle means after that.
    for (const ns of namespaces) await search(daemon, ns, "ranked");
    await waitForTermSpaces(daemon, trainable);
    phases.push(await phase(daemon, "term spaces trained (idle)", config.quietMs));
    // The first query embedding grows the use-lite Worker's WASM memory by ~28 MiB, which it
    // keeps until the Worker is replaced after `embedding.workerIdleRecycleMs` (the stored
    // vectors here were never embedded in this daemon). A mode=vector search of a namespace with
    // no records embeds one and loads no vectors, so the next moment's growth is the index's own.
    await search(daemon, "/actor/eval/project/memory-bench-empty/", "vector");
    phases.push(await phase(daemon, "a query embedded, no vectors held", config.quietMs));
    // A search whose query embedding misses its budget (a loaded machine: the test suite beside
    // busy cores) answers without loading any vectors: search again until every namespace's are
    // held. Each search restarts their idle time, so the reading still comes well before it ends.
    await waitFor(async () => {
      for (const ns of namespaces) await search(daemon, ns, "vector");
      return (await embeddingStats(daemon)).index.vectors === config.records || undefined;
    }, {
      timeoutMs: 5 * 60_000,
      intervalMs: 1000,
      what: `every namespace's ${config.records} vectors to be loaded by its vector search`,
    });
    phases.push(await phase(daemon, "vectors loaded too", config.quietMs));
    const { index } = await embeddingStats(daemon);
    // Each namespace's idle time counts from its own search: one dropped before the reading
    // would make "vectors loaded" a figure of fewer vectors.
    if (index.vectors !== config.records) {
      throw new Error(
        `only ${index.vectors} of ${config.records} vectors were held at the "vectors loaded" ` +
          `reading: the searches took longer than embedding.vectorIdleMs allows`,
      );
    }
    // waitFor ends on any value but undefined: `false` would end it at once.
    await waitFor(async () => (await embeddingStats(daemon)).index.vectors === 0 || undefined, {
      timeoutMs: 3 * vectorIdleMs + 60_000,
      intervalMs: 500,
      what: "the vectors to be unloaded",
    });
    phases.push(
      await phase(daemon, "vectors unloaded after embedding.vectorIdleMs", config.quietMs),
    );
    const after = (await embeddingStats(daemon)).index.vectors;
    if (after !== 0) {
      throw new Error(
        `${after} vectors were back in memory at the "vectors unloaded" reading: nothing should ` +
          `have searched them; find what did before trusting this figure`,
      );
    }
    const idle = phases[1].rss_kib;
    const loaded = phases[3].rss_kib;
    let dbBytes = 0;
    for await (const entry of Deno.readDir(dataDir)) {
      if (entry.name.startsWith("kiro-learn.db")) {
        dbBytes += (await Deno.stat(join(dataDir, entry.name))).size;
      }
    }
    return {
      records: config.records,
      namespaces: namespaces.length,
      rss_idle_kib: idle,
      rss_index_loaded_kib: loaded,
      phases,
      index: { vectors: index.vectors, bytes: index.bytes },
      db_bytes: dbBytes,
      quantization,
    };
  } finally {
    // The test daemon removes its data dir when disposed; this covers a failure before it ran.
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

function mib(kib: number): string {
  return (kib / 1024).toFixed(0);
}

async function main(): Promise<void> {
  const config = parseMemoryArgs(Deno.args);
  const f = await measure(config);
  console.log(
    `memory: ${f.records.toLocaleString("en")} records (${f.namespaces} namespaces), use-lite ` +
      `loaded: idle RSS ${mib(f.rss_idle_kib)} MiB, after mode=vector searches ` +
      `${mib(f.rss_index_loaded_kib)} MiB (index ${f.index.vectors} vectors, ` +
      `${(f.index.bytes / 1024 / 1024).toFixed(1)} MiB); database ` +
      `${(f.db_bytes / 1024 / 1024).toFixed(0)} MiB`,
  );
  for (const p of f.phases) {
    console.log(
      `memory: ${p.moment}: RSS ${mib(p.rss_kib)} MiB after ${config.quietMs / 1000} s quiet ` +
        `(${mib(p.rss_soon_kib)} MiB after 3 s); main heap ` +
        `${mib(p.heap_used / 1024)} of ${mib(p.heap_total / 1024)} MiB used, ` +
        `outside the heap ${mib(p.external / 1024)} MiB`,
    );
  }
  const q = f.quantization;
  console.log(
    `memory: ${COLLECTOR_VECTOR_PRECISION} index vs float32 on ${q.records} real records, ${q.queries} real queries: ` +
      `top-10 overlap ${q.top10_overlap.toFixed(3)}, same top-1 ${q.top1_same.toFixed(3)}, ` +
      `largest similarity error ${q.max_similarity_error.toFixed(4)}`,
  );
  const report = {
    mode: config.mode,
    at: new Date().toISOString(),
    deno: Deno.version.deno,
    cpus: navigator.hardwareConcurrency,
    loadavg: Deno.loadavg(),
    ...f,
  };
  await Deno.mkdir(dirname(config.out), { recursive: true });
  await Deno.writeTextFile(config.out, JSON.stringify(report, null, 2) + "\n");
  console.log(`memory: wrote ${config.out}`);
}

if (import.meta.main) await main();
