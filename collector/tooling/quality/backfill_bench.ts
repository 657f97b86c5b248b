/**
 * Backfill benchmark: how fast the real daemon embeds a store of real records it finds without
 * vectors (the development set's commit records, `../shared/quality/fixes-dev`), and what a
 * steady trickle of hook events sees meanwhile: ingest latency during the backfill, then the
 * same load once it is idle, for comparison.
 *
 * Records are taken evenly across the set (both repositories), `--records` of them (default
 * 1,500; 48 with `--quick`). Ingest is one client posting a text event every 25 ms over a
 * keep-alive connection, timed per request.
 *
 * Run: `deno run -A collector/tooling/quality/backfill_bench.ts [--quick] [--records=N]
 * [--data=DIR] [--out=PATH]`. Figures go to stdout and to `.bench/backfill.json`
 * (`backfill-quick.json` with `--quick`).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { formatMs, type LatencySummary, makeEvent, summarize } from "@kiro-learn/core/testing";
import { postJson, startTestDaemon, type TestDaemon, waitFor } from "../testing/mod.ts";
import { DEFAULT_REAL_SET_DIR, loadRealSet } from "./real_set.ts";
import { countArg } from "./_bench_args.ts";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Pause between two ingest requests. */
const INGEST_EVERY_MS = 25;

/** What one run measures. */
export interface BackfillBenchConfig {
  /** `quick` (small sizes, for tests) or `full`. */
  mode: "quick" | "full";
  /** Records to embed. */
  records: number;
  /** The development set's folder. */
  data: string;
  /** Where the JSON goes. */
  out: string;
}

/** Parses the command line (`--quick`, `--records=N`, `--data=DIR`, `--out=PATH`). */
export function parseBackfillArgs(args: readonly string[]): BackfillBenchConfig {
  let quick = false;
  let records: number | undefined;
  let data = DEFAULT_REAL_SET_DIR;
  let out: string | undefined;
  for (const arg of args) {
    if (arg === "--quick") quick = true;
    else if (arg.startsWith("--records=")) records = countArg(arg, "--records=");
    else if (arg.startsWith("--data=")) data = arg.slice("--data=".length);
    else if (arg.startsWith("--out=")) out = arg.slice("--out=".length);
    else {
      throw new Error(
        `unknown argument ${arg}; usage: backfill_bench.ts [--quick] [--records=N] ` +
          `[--data=DIR] [--out=PATH]`,
      );
    }
  }
  return {
    mode: quick ? "quick" : "full",
    records: records ?? (quick ? 48 : 1_500),
    data,
    out: out ?? join(REPO_ROOT, ".bench", quick ? "backfill-quick.json" : "backfill.json"),
  };
}

/** `count` items spread evenly over `items` (all of them when there are fewer). */
export function evenly<T>(items: readonly T[], count: number): T[] {
  if (count >= items.length) return [...items];
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * items.length / count)]);
}

// deno-lint-ignore no-explicit-any
async function embeddingStats(daemon: TestDaemon): Promise<any> {
  const res = await daemon.fetch("/v1/stats");
  if (!res.ok) throw new Error(`/v1/stats answered ${res.status}`);
  return (await res.json()).embedding;
}

/** Posts one event every `INGEST_EVERY_MS` until `stop()` resolves; returns the latencies. */
async function trickle(daemon: TestDaemon, namespace: string, stop: Promise<void>) {
  let stopped = false;
  stop.then(() => (stopped = true));
  const latencies: number[] = [];
  while (!stopped) {
    const event = makeEvent({
      namespace,
      body: { type: "text", content: "run the embedding benchmark again" },
    });
    const t = performance.now();
    const res = await postJson(daemon, "/v1/events", event);
    await res.body?.cancel();
    latencies.push(performance.now() - t);
    if (!res.ok) throw new Error(`ingest answered ${res.status}`);
    await new Promise((r) => setTimeout(r, INGEST_EVERY_MS));
  }
  return latencies;
}

/**
 * CPU seconds (user + system, all threads) process `pid` has used, from `/proc` (null where
 * there is none): with other work on the machine, records per CPU second of the daemon moves
 * far less than records per second of the clock.
 */
export async function cpuSeconds(pid: number): Promise<number | null> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // Fields after the command name (which may hold spaces): utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return null;
  }
}

/** `USER_HZ`: the unit of `/proc/<pid>/stat` times, 100 on every Linux build Deno runs on. */
const CLOCK_TICKS_PER_S = 100;

interface BackfillFigures {
  records: number;
  seconds: number;
  records_per_s: number;
  /** The daemon's CPU seconds (all its threads) while it embedded; null without `/proc`. */
  cpu_seconds: number | null;
  /** Records per daemon CPU second (null without `/proc`). */
  records_per_cpu_s: number | null;
  ingest_during: LatencySummary;
  ingest_idle: LatencySummary;
  loadavg_end: number[];
}

async function measure(config: BackfillBenchConfig): Promise<BackfillFigures> {
  const set = await loadRealSet(config.data);
  const records = evenly(set.records, config.records);
  const dataDir = await Deno.makeTempDir({ prefix: "kiro-learn-backfill-bench-" });
  try {
    const storage = openSqliteStorage(join(dataDir, "kiro-learn.db"));
    try {
      await storage.commitExtraction({
        consumedSeqs: [],
        records: records.map((record) => ({ record })),
      });
    } finally {
      storage.close();
    }
    await using daemon = await startTestDaemon({
      dataDir,
      settings: {
        embedding: { backend: "use-lite" },
        extraction: { strategy: "heuristic", idleMs: 300_000, sizeThresholdBytes: 16_777_216 },
        compaction: { enabled: false },
      },
    });
    // Timing starts with the model ready: loading it is the embedding bench's figure.
    const start = await waitFor(async () => {
      const e = await embeddingStats(daemon);
      if (e?.state === "failed") throw new Error(`the embedder failed: ${e.error}`);
      return e?.state === "ready" ? e : undefined;
    }, { timeoutMs: 120_000, intervalMs: 20, what: "the embedder to load" });
    const t0 = performance.now();
    const cpu0 = await cpuSeconds(daemon.pid());
    const doneAtStart = start.backfill?.done ?? 0;
    const finished = Promise.withResolvers<void>();
    const during = trickle(daemon, records[0].namespace, finished.promise);
    let done = doneAtStart;
    while (done < records.length) {
      await new Promise((r) => setTimeout(r, 100));
      const s = await embeddingStats(daemon);
      if (s.backfill?.failed > 0) throw new Error(`the backfill gave up on ${s.backfill.failed}`);
      done = s.backfill?.done ?? 0;
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = await cpuSeconds(daemon.pid());
    const cpu = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
    finished.resolve();
    const duringLatencies = await during;
    const idleStop = new Promise<void>((r) =>
      setTimeout(r, Math.min(20_000, Math.max(3_000, seconds * 1000)))
    );
    const idleLatencies = await trickle(daemon, records[0].namespace, idleStop);
    return {
      records: records.length,
      seconds,
      records_per_s: records.length / seconds,
      cpu_seconds: cpu,
      records_per_cpu_s: cpu ? records.length / cpu : null,
      ingest_during: summarize(duringLatencies),
      ingest_idle: summarize(idleLatencies),
      loadavg_end: Deno.loadavg(),
    };
  } finally {
    // The test daemon removes its data dir when disposed; this covers a failure before it ran.
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

async function main(): Promise<void> {
  const config = parseBackfillArgs(Deno.args);
  const loadStart = Deno.loadavg();
  const f = await measure(config);
  const line = (s: LatencySummary) =>
    `p50 ${formatMs(s.p50)}  p99 ${formatMs(s.p99)}  max ${formatMs(s.max)} (n ${s.count})`;
  console.log(
    `backfill: ${f.records} dev-set records embedded by the daemon in ${f.seconds.toFixed(1)} s: ` +
      `${f.records_per_s.toFixed(1)} records/s  (load average ${loadStart[0].toFixed(2)} at ` +
      `start, ${f.loadavg_end[0].toFixed(2)} at end)`,
  );
  if (f.cpu_seconds !== null) {
    console.log(
      `backfill: the daemon used ${f.cpu_seconds.toFixed(1)} CPU s (all threads): ` +
        `${f.records_per_cpu_s?.toFixed(1)} records per CPU s`,
    );
  }
  console.log(`backfill: ingest during backfill  ${line(f.ingest_during)}`);
  console.log(`backfill: ingest once idle        ${line(f.ingest_idle)}`);
  const report = {
    mode: config.mode,
    at: new Date().toISOString(),
    deno: Deno.version.deno,
    cpus: navigator.hardwareConcurrency,
    loadavg_start: loadStart,
    ...f,
  };
  await Deno.mkdir(dirname(config.out), { recursive: true });
  await Deno.writeTextFile(config.out, JSON.stringify(report, null, 2) + "\n");
  console.log(`backfill: wrote ${config.out}`);
}

if (import.meta.main) await main();
