/**
 * Storage benchmark: event ingest throughput and lexical search latency on a real SQLite file.
 *
 * ```sh
 * deno run -A core/bench/storage_bench.ts           # 20,000 events; 10k and 100k records
 * deno run -A core/bench/storage_bench.ts --quick   # 2,000 events; 1k and 5k records
 * deno run -A core/bench/storage_bench.ts --out=/tmp/storage.json
 * ```
 *
 * 1. Ingest: `SqliteStorage.ingestEvent` (event row + queue row, one transaction per call, WAL
 *    with `synchronous = NORMAL`) over a deterministic mix of prompts, 1–2 KB tool-use bodies
 *    and turn summaries. Events are generated before the clock starts.
 * 2. Lexical search: `searchLexicalSync` (query rewrite with IDF from the index's own tokenizer,
 *    then FTS5 bm25) over about 200 realistic prompts, at each record count, all records in one
 *    namespace. A second namespace with a few records is searched too, to show what isolation
 *    costs. Records are seeded through `commitExtraction`, 1,000 per transaction.
 *
 * Prints one line per figure and writes them as JSON to `.bench/storage.json` at the repository
 * root (`.bench/storage-quick.json` with `--quick`, or the `--out` path).
 *
 * @module
 */
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MemoryRecord } from "../schemas/mod.ts";
import { buildFtsQuery, queryTokens, selectQueryTerms } from "../search/mod.ts";
import { openSqliteStorage, type SqliteStorage } from "../storage/mod.ts";
import {
  corpusNamespace,
  createRng,
  generateEvents,
  generateQueries,
  generateRecords,
  makeCorpusRecord,
} from "../testing/mod.ts";
import {
  formatBytes,
  formatCount,
  formatMs,
  formatSeconds,
  formatSize,
  type LatencySummary,
  round,
  summarize,
} from "../testing/mod.ts";

/** Sizes and seeds of one run. */
export interface StorageBenchConfig {
  /** `quick` (smoke run) or `full`. */
  mode: "quick" | "full";
  /** Events to ingest. */
  events: number;
  /** Record counts at which search is measured, ascending, all in one namespace. */
  recordSizes: number[];
  /** Records in the second namespace. */
  otherRecords: number;
  /** Queries per measurement. */
  queries: number;
  /** Records per `commitExtraction` transaction while seeding. */
  batchSize: number;
  /** Results asked of each search (the retrieval default). */
  limit: number;
  /** Seed of every generator. */
  seed: number;
  /** Where the JSON report goes. */
  out: string;
}

/** The ingest figures. */
export interface IngestReport {
  /** Events stored. */
  events: number;
  /** Events per kind. */
  kinds: Record<string, number>;
  /** Serialised body characters, summed. */
  body_chars: number;
  /** Wall time of all calls. */
  elapsed_ms: number;
  /** Events per second. */
  events_per_s: number;
  /** Per-call latency. */
  latency_ms: LatencySummary;
  /** Queue rows after ingest (one per event). */
  queue_rows: number;
  /** Database plus WAL size after ingest. */
  db_bytes: number;
}

/** The search figures at one record count. */
export interface SearchReport {
  /** Namespace searched. */
  label: "main" | "other";
  /** Records in the namespace searched. */
  namespace_records: number;
  /** Records in the whole table. */
  total_records: number;
  /** Storage time spent seeding up to this size (cumulative, generation excluded). */
  seed_ms: number;
  /** Records per second while seeding. */
  seed_records_per_s: number;
  /** Queries measured. */
  queries: number;
  /** Per-query latency. */
  latency_ms: LatencySummary;
  /** Latency per query kind. */
  by_kind: Record<string, LatencySummary>;
  /** Share of queries with at least one hit. */
  hit_rate: number;
  /** Mean hits per query (at most `limit`). */
  mean_hits: number;
  /** Hits from another namespace (must be 0). */
  leaked_hits: number;
  /**
   * Records of the namespace the rewritten query matches before ranking (what bm25 has to
   * score): median and mean share of the namespace, 0–1. Measured outside the timed loop.
   */
  matched_share: { p50: number; mean: number };
}

/** The whole report, as written to JSON. */
export interface StorageBenchReport {
  /** Always `storage`. */
  bench: "storage";
  /** `quick` or `full`. */
  mode: "quick" | "full";
  /** When the run ended. */
  generated_at: string;
  /** Whole run, generation included. */
  elapsed_ms: number;
  /** Where it ran. */
  environment: Record<string, string | number>;
  /** Sizes, seed, and the database settings in force. */
  config: Record<string, string | number>;
  /** Ingest figures. */
  ingest: IngestReport;
  /** Search figures, main namespace at each size, then the other namespace. */
  search: SearchReport[];
}

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Reads `--quick` and `--out=PATH` (or `--out PATH`); anything else is an error. */
export function parseBenchArgs(args: readonly string[]): StorageBenchConfig {
  let quick = false;
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--quick") quick = true;
    else if (arg.startsWith("--out=")) out = arg.slice("--out=".length);
    else if (arg === "--out" && i + 1 < args.length) out = args[++i];
    else throw new Error(`unknown argument ${arg}; usage: storage_bench.ts [--quick] [--out=PATH]`);
  }
  return {
    mode: quick ? "quick" : "full",
    events: quick ? 2_000 : 20_000,
    recordSizes: quick ? [1_000, 5_000] : [10_000, 100_000],
    otherRecords: 50,
    queries: 200,
    batchSize: 1_000,
    limit: 10,
    seed: 20_250_106,
    out: out ?? join(REPO_ROOT, ".bench", quick ? "storage-quick.json" : "storage.json"),
  };
}

function roundSummary(summary: LatencySummary): LatencySummary {
  return {
    count: summary.count,
    min: round(summary.min, 4),
    mean: round(summary.mean, 4),
    p50: round(summary.p50, 4),
    p95: round(summary.p95, 4),
    p99: round(summary.p99, 4),
    max: round(summary.max, 4),
  };
}

function pragma(storage: SqliteStorage, name: string): string {
  const row = storage.db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown>;
  return String(Object.values(row)[0]);
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return 0;
  }
}

async function benchIngest(
  dir: string,
  config: StorageBenchConfig,
): Promise<{ report: IngestReport; settings: Record<string, string> }> {
  const namespace = corpusNamespace("bench-ingest");
  const projectId = namespace.split("/").at(-2)!;
  const events = generateEvents(config.events, {
    seed: config.seed,
    namespace,
    projectPath: "/home/dev/src/kiro-learn",
  });
  const kinds: Record<string, number> = {};
  let bodyChars = 0;
  for (const event of events) {
    kinds[event.kind] = (kinds[event.kind] ?? 0) + 1;
    bodyChars += JSON.stringify(event.body).length;
  }

  const path = join(dir, "ingest.db");
  const storage = openSqliteStorage(path);
  try {
    const settings = {
      journal_mode: pragma(storage, "journal_mode"),
      synchronous: pragma(storage, "synchronous"),
      sqlite_version: String(
        (storage.db.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v,
      ),
    };
    const latencies = new Array<number>(events.length);
    const start = performance.now();
    for (let i = 0; i < events.length; i++) {
      const t0 = performance.now();
      const stored = await storage.ingestEvent(events[i], { project_id: projectId, enqueue: true });
      latencies[i] = performance.now() - t0;
      if (!stored) throw new Error(`event ${events[i].event_id} was not stored (duplicate id?)`);
    }
    const elapsed = performance.now() - start;
    const depth = await storage.queueDepths();
    const queueRows = depth.reduce((sum, d) => sum + d.rows, 0);
    if (queueRows !== events.length) {
      throw new Error(`expected ${events.length} queue rows, found ${queueRows}`);
    }
    return {
      settings,
      report: {
        events: events.length,
        kinds,
        body_chars: bodyChars,
        elapsed_ms: round(elapsed, 1),
        events_per_s: round(events.length / (elapsed / 1000), 1),
        latency_ms: roundSummary(summarize(latencies)),
        queue_rows: queueRows,
        db_bytes: (await fileSize(path)) + (await fileSize(`${path}-wal`)),
      },
    };
  } finally {
    storage.close();
  }
}

function measureSearch(
  storage: SqliteStorage,
  namespace: string,
  options: { config: StorageBenchConfig; queries: ReturnType<typeof generateQueries> },
): Pick<
  SearchReport,
  "latency_ms" | "by_kind" | "hit_rate" | "mean_hits" | "leaked_hits" | "matched_share"
> {
  const { queries, config } = options;
  // One unmeasured pass: statements prepared, pages cached, as in a running collector.
  for (const query of queries) {
    storage.searchLexicalSync(namespace, query.text, { limit: config.limit });
  }
  const latencies: number[] = [];
  const perKind = new Map<string, number[]>();
  let withHits = 0;
  let hits = 0;
  let leaked = 0;
  for (const query of queries) {
    const t0 = performance.now();
    const results = storage.searchLexicalSync(namespace, query.text, { limit: config.limit });
    const ms = performance.now() - t0;
    latencies.push(ms);
    const samples = perKind.get(query.kind) ?? [];
    samples.push(ms);
    perKind.set(query.kind, samples);
    if (results.length > 0) withHits++;
    hits += results.length;
    leaked += results.filter((r) => r.record.namespace !== namespace).length;
  }
  const byKind: Record<string, LatencySummary> = {};
  for (const [kind, samples] of [...perKind].sort(([a], [b]) => a.localeCompare(b))) {
    byKind[kind] = roundSummary(summarize(samples));
  }
  const namespaceRecords = countRecords(storage, namespace);
  const shares = summarize(
    queries.map((q) => matchedRecords(storage, namespace, q.text) / namespaceRecords),
  );
  return {
    latency_ms: roundSummary(summarize(latencies)),
    by_kind: byKind,
    hit_rate: round(withHits / queries.length, 3),
    mean_hits: round(hits / queries.length, 2),
    leaked_hits: leaked,
    matched_share: { p50: round(shares.p50, 3), mean: round(shares.mean, 3) },
  };
}

function countRecords(storage: SqliteStorage, namespace: string): number {
  const row = storage.db.prepare("SELECT count(*) AS n FROM memory_records WHERE namespace = ?")
    .get(namespace) as { n: number };
  return row.n;
}

// The rows the search ranks: the same rewrite as `searchLexicalSync`, counted instead of ranked.
function matchedRecords(storage: SqliteStorage, namespace: string, query: string): number {
  const tokens = queryTokens(query);
  if (tokens.length === 0) return 0;
  const totalDocs = (storage.db.prepare("SELECT count(*) AS n FROM memory_records").get() as {
    n: number;
  }).n;
  const terms = selectQueryTerms(storage.termStats(tokens), { totalDocs });
  if (terms.length === 0) return 0;
  const row = storage.db.prepare(
    `SELECT count(*) AS n FROM memory_records_fts
    JOIN memory_records mr ON mr.id = memory_records_fts.rowid
    WHERE memory_records_fts MATCH ? AND mr.namespace = ?`,
  ).get(buildFtsQuery(terms), namespace) as { n: number };
  return row.n;
}

async function commitBatch(storage: SqliteStorage, records: MemoryRecord[]): Promise<number> {
  const t0 = performance.now();
  await storage.commitExtraction({
    consumedSeqs: [],
    records: records.map((record) => ({ record })),
  });
  return performance.now() - t0;
}

async function benchSearch(
  dir: string,
  config: StorageBenchConfig,
  onResult: (report: SearchReport) => void,
): Promise<SearchReport[]> {
  const mainNs = corpusNamespace("bench-main");
  const otherNs = corpusNamespace("bench-other");
  const queries = generateQueries(config.queries, { seed: config.seed + 2 });
  const storage = openSqliteStorage(join(dir, "search.db"));
  const reports: SearchReport[] = [];
  try {
    await commitBatch(
      storage,
      generateRecords(config.otherRecords, { seed: config.seed + 3, namespace: otherNs }),
    );
    const rng = createRng(config.seed + 1);
    let stored = 0;
    let seedMs = 0;
    for (const size of config.recordSizes) {
      while (stored < size) {
        const count = Math.min(config.batchSize, size - stored);
        const batch = Array.from(
          { length: count },
          (_, i) => makeCorpusRecord(rng, { namespace: mainNs, index: stored + i }),
        );
        seedMs += await commitBatch(storage, batch);
        stored += count;
      }
      const report: SearchReport = {
        label: "main",
        namespace_records: stored,
        total_records: stored + config.otherRecords,
        seed_ms: round(seedMs, 1),
        seed_records_per_s: round(stored / (seedMs / 1000), 1),
        queries: queries.length,
        ...measureSearch(storage, mainNs, { config, queries }),
      };
      reports.push(report);
      onResult(report);
    }
    const other: SearchReport = {
      label: "other",
      namespace_records: config.otherRecords,
      total_records: stored + config.otherRecords,
      seed_ms: 0,
      seed_records_per_s: 0,
      queries: queries.length,
      ...measureSearch(storage, otherNs, { config, queries }),
    };
    reports.push(other);
    onResult(other);
    return reports;
  } finally {
    storage.close();
  }
}

function pad(label: string): string {
  return label.padEnd(22);
}

function ingestLine(report: IngestReport): string {
  return `storage: ${pad(`ingest ${report.events} events`)}` +
    `${formatCount(report.events_per_s)} ev/s  p50 ${formatMs(report.latency_ms.p50)}  ` +
    `p99 ${formatMs(report.latency_ms.p99)}  max ${formatMs(report.latency_ms.max)}  ` +
    `(${formatBytes(report.body_chars)} of bodies, db ${formatBytes(report.db_bytes)})`;
}

function searchLines(report: SearchReport, config: StorageBenchConfig): string[] {
  const l = report.latency_ms;
  const figures = `p50 ${formatMs(l.p50)}  p95 ${formatMs(l.p95)}  max ${formatMs(l.max)}`;
  const hits = `${report.queries} queries, ${Math.round(report.hit_rate * 100)}% with hits, ` +
    `median query matches ${Math.round(report.matched_share.p50 * 100)}% of records`;
  const kinds = Object.entries(report.by_kind)
    .map(([kind, s]) => `${kind} p50 ${formatMs(s.p50)} p95 ${formatMs(s.p95)}`)
    .join(" | ");
  if (report.label === "other") {
    return [
      `storage: ${
        pad(`lexical search other`)
      }${figures}  (${report.namespace_records} records beside ${
        formatSize(report.total_records - report.namespace_records)
      }, ${hits}, ${report.leaked_hits} leaked)`,
    ];
  }
  return [
    `storage: ${pad(`seed ${formatSize(report.namespace_records)} records`)}` +
    `${formatSeconds(report.seed_ms)}  ${formatCount(report.seed_records_per_s)} rec/s  ` +
    `(${formatCount(config.batchSize)} per transaction)`,
    `storage: ${pad(`lexical search ${formatSize(report.namespace_records)}`)}` +
    `${figures}  (${hits})`,
    `storage:   by kind: ${kinds}`,
  ];
}

function environment(): Record<string, string | number> {
  const cpuList = cpus();
  return {
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    os: Deno.build.os,
    arch: Deno.build.arch,
    cpu: cpuList[0]?.model ?? "unknown",
    cpus: cpuList.length,
    memory_gib: round(totalmem() / 1024 ** 3, 1),
  };
}

/** Runs the benchmark, prints each figure as it is measured, and writes the JSON report. */
export async function runStorageBench(
  config: StorageBenchConfig,
  options: { print?: (line: string) => void } = {},
): Promise<StorageBenchReport> {
  const print = options.print ?? console.log;
  const started = performance.now();
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-storage-bench-" });
  try {
    const env = environment();
    const { report: ingest, settings } = await benchIngest(dir, config);
    print(
      `storage: ${config.mode} run, deno ${env.deno}, sqlite ${settings.sqlite_version}, ` +
        `${env.os}/${env.arch}, ${env.cpu} x${env.cpus}, journal_mode=${settings.journal_mode}, ` +
        `synchronous=${settings.synchronous === "1" ? "NORMAL" : settings.synchronous}`,
    );
    print(ingestLine(ingest));
    const search = await benchSearch(dir, config, (report) => {
      for (const line of searchLines(report, config)) print(line);
    });
    const report: StorageBenchReport = {
      bench: "storage",
      mode: config.mode,
      generated_at: new Date().toISOString(),
      elapsed_ms: round(performance.now() - started, 0),
      environment: env,
      config: {
        events: config.events,
        record_sizes: config.recordSizes.join(","),
        other_records: config.otherRecords,
        queries: config.queries,
        batch_size: config.batchSize,
        limit: config.limit,
        seed: config.seed,
        ...settings,
      },
      ingest,
      search,
    };
    await Deno.mkdir(dirname(config.out), { recursive: true });
    await Deno.writeTextFile(config.out, JSON.stringify(report, null, 2) + "\n");
    print(`storage: wrote ${config.out} (${formatSeconds(report.elapsed_ms)} in all)`);
    return report;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  await runStorageBench(parseBenchArgs(Deno.args));
}
