/**
 * Team memory benchmark: N real collector daemons (default 8, separate data dirs, one actor and
 * PostgreSQL role each) sharing one project through one PostgreSQL 15, under sustained ingest
 * (events on every collector, heuristic extraction on) and memory saves.
 *
 * Measures, for the same load without and then with sharing (after a warm-up that does not
 * count):
 * - sharing lag: from a memory's save on one collector to its arrival in every other's SQLite
 *   store (the bench reads each store directly every 25 ms), p50 / p95 / max;
 * - local ingest latency of `POST /v1/events` on every collector, p50 / p99;
 * - PostgreSQL: connections to the team database (sampled), and its CPU (all its processes'
 *   user + system time over the phase).
 *
 * Then the large pull (`team_pull_bench.ts`): B, whose store holds 50k records, pulls A's 50k
 * while serving its own session, then A's burst of 10k.
 *
 * Run: `deno task bench team` (opt-in: several minutes) or
 * `deno run -A collector/tooling/bench/team_bench.ts [--quick] [--collectors=N] [--seconds=S]
 * [--pull-only] [--local=N] [--pulled=N] [--burst=N]`. Figures go to stdout and to
 * `.bench/team.json`.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { newEventId, newRecordId } from "@kiro-learn/core/ids";
import { buildNamespace } from "@kiro-learn/core/project";
import { formatMs, gitRemoteProject, makeEvent, summarize } from "@kiro-learn/core/testing";
import {
  createTeamDatabase,
  grantTeamProject,
  postJson,
  startTestDaemon,
  startTestPostgres,
  type TestDaemon,
  type TestPostgres,
} from "../testing/mod.ts";
import { connectTeam } from "../../daemon/team/mod.ts";
import { formatPullReport, runPullBench } from "./team_pull_bench.ts";

const quick = Deno.args.includes("--quick");
const arg = (name: string, fallback: number) =>
  Number(Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const COLLECTORS = arg("collectors", 8);
const SECONDS = arg("seconds", quick ? 8 : 30);
/** Load runs this long before a phase's figures count (daemons warming up, first extraction). */
const WARMUP_S = quick ? 2 : 5;
/** Events per second per collector (what the hooks of one busy session post). */
const EVENTS_PER_S = 20;
/** Memories saved per second per collector (each one is shared with every other). */
const SAVES_PER_S = 1;
const out = Deno.args.find((a) => a.startsWith("--out="))?.slice(6) ??
  new URL(`../../../.bench/team${quick ? "-quick" : ""}.json`, import.meta.url).pathname;

/** The shared project's id: set from a real repository with a remote when the run starts. */
let project = "";
const ns = (i: number) => buildNamespace(`dev${i}`, project);

/** User + system CPU seconds of the cluster's postmaster and its children so far. */
function postgresCpuSeconds(dataDir: string): number {
  const ticks = 100; // USER_HZ on Linux
  const postmaster = Deno.readTextFileSync(`${dataDir}/postmaster.pid`).split("\n")[0].trim();
  let total = 0;
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (entry.name !== postmaster && fields[1] !== postmaster) continue;
      total += (Number(fields[11]) + Number(fields[12])) / ticks;
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

interface Phase {
  ingest: number[];
  lag: number[];
  missing: number;
  connections: number;
  pgCpuCores: number | null;
}

async function phase(
  daemons: TestDaemon[],
  options: { pg: TestPostgres | null; sharing: boolean },
): Promise<Phase> {
  const stores = daemons.map((d) =>
    new DatabaseSync(`${d.dataDir}/kiro-learn.db`, { readOnly: true })
  );
  const ingest: number[] = [];
  const lags: number[] = [];
  const saved = new Map<string, { at: number; from: number }>();
  const seen = new Map<string, number[]>();
  let connections = 0;
  const admin = options.pg
    ? connectTeam(options.pg.url({ db: "team", password: "" }), {
      password: options.pg.adminPassword,
    })
    : null;
  let cpuStart = 0;
  const warm = performance.now() + WARMUP_S * 1000;
  const started = warm;
  const until = started + SECONDS * 1000;
  const warmed = new Promise<void>((r) => setTimeout(r, WARMUP_S * 1000)).then(() => {
    if (options.pg) cpuStart = postgresCpuSeconds(options.pg.dataDir);
  });
  let running = true;

  const load = daemons.map(async (daemon, i) => {
    let n = 0;
    while (performance.now() < until) {
      const tick = performance.now();
      for (let e = 0; e < EVENTS_PER_S; e++) {
        const event = makeEvent({
          event_id: newEventId(),
          namespace: ns(i),
          body: { type: "text", content: `dev${i} ran the payments tests, step ${n++}` },
        });
        const t = performance.now();
        const res = await postJson(daemon, "/v1/events", event);
        await res.body?.cancel();
        if (t >= warm) ingest.push(performance.now() - t);
      }
      for (let s = 0; s < SAVES_PER_S; s++) {
        const id = newRecordId();
        const at = performance.now();
        const res = await postJson(daemon, "/v1/memories", {
          record_id: id,
          namespace: ns(i),
          strategy: "mcp_observation",
          title: `dev${i} learned fact ${n}`,
          summary: `the payments client retries on 409 (dev${i}, ${n})`,
          source_event_ids: [newEventId()],
          created_at: new Date().toISOString(),
        });
        await res.body?.cancel();
        if (at >= warm) saved.set(id, { at, from: i });
      }
      const rest = 1000 - (performance.now() - tick);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    }
  });

  // Arrival of each saved record in every other store.
  const watch = (async () => {
    const pending = () =>
      [...saved.keys()].filter((id) => (seen.get(id)?.length ?? 0) < daemons.length - 1);
    while (
      running || (options.sharing && pending().length > 0 && performance.now() < until + 30_000)
    ) {
      for (const id of pending()) {
        const info = saved.get(id)!;
        const arrivals = seen.get(id) ?? [];
        for (const [j, store] of stores.entries()) {
          if (j === info.from || arrivals.includes(j)) continue;
          if (store.prepare("SELECT 1 FROM memory_records WHERE record_id = ?").get(id)) {
            arrivals.push(j);
            lags.push(performance.now() - info.at);
          }
        }
        seen.set(id, arrivals);
      }
      if (admin) {
        const [{ n }] = await admin`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = 'team' AND usename <> current_user`;
        connections = Math.max(connections, n);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  await Promise.all(load);
  await warmed;
  const wall = (performance.now() - started) / 1000;
  const pgCpuCores = options.pg ? (postgresCpuSeconds(options.pg.dataDir) - cpuStart) / wall : null;
  running = false;
  await watch;
  await admin?.end();
  for (const store of stores) store.close();
  const expected = options.sharing ? saved.size * (daemons.length - 1) : 0;
  return { ingest, lag: lags, missing: expected - lags.length, connections, pgCpuCores };
}

async function startCollectors(pg: TestPostgres | null): Promise<TestDaemon[]> {
  const daemons: TestDaemon[] = [];
  for (let i = 0; i < COLLECTORS; i++) {
    const dataDir = await Deno.makeTempDir({ prefix: `kiro-learn-bench-dev${i}-` });
    if (pg) await Deno.writeTextFile(`${dataDir}/team-password`, `pw${i}\n`, { mode: 0o600 });
    daemons.push(
      await startTestDaemon({
        dataDir,
        settings: {
          extraction: { strategy: "heuristic", idleMs: 5000 },
          reconciliation: { enabled: false },
          ...(pg ? { team: { url: pg.url({ user: `dev${i}`, password: "", db: "team" }) } } : {}),
        },
      }),
    );
  }
  return daemons;
}

function report(name: string, p: Phase): Record<string, number | null> {
  const ingest = summarize(p.ingest);
  const lag = p.lag.length > 0 ? summarize(p.lag) : null;
  console.log(
    `team: ${name.padEnd(15)} ingest p50 ${formatMs(ingest.p50)} p99 ${formatMs(ingest.p99)}` +
      (lag
        ? `  sharing lag p50 ${formatMs(lag.p50)} p95 ${formatMs(lag.p95)} max ${
          formatMs(lag.max)
        } (${p.lag.length} arrivals, ${p.missing} missing)` +
          `  PostgreSQL: ${p.connections} connections, ${(p.pgCpuCores ?? 0).toFixed(2)} cores`
        : ""),
  );
  return {
    events: p.ingest.length,
    ingest_p50_ms: ingest.p50,
    ingest_p99_ms: ingest.p99,
    lag_p50_ms: lag?.p50 ?? null,
    lag_p95_ms: lag?.p95 ?? null,
    lag_max_ms: lag?.max ?? null,
    arrivals: p.lag.length,
    missing: p.missing,
    pg_connections: p.pgCpuCores === null ? null : p.connections,
    pg_cpu_cores: p.pgCpuCores,
  };
}

async function disposeAll(daemons: TestDaemon[]): Promise<void> {
  for (const d of daemons) await d[Symbol.asyncDispose]();
}

async function sharingPhases(): Promise<Record<string, unknown>> {
  console.log(
    `team: ${COLLECTORS} collectors, ${SECONDS} s per phase, each ${EVENTS_PER_S} events/s and ` +
      `${SAVES_PER_S} shared memory/s`,
  );
  const alone = await startCollectors(null);
  const without = await phase(alone, { pg: null, sharing: false });
  await disposeAll(alone);

  const root = await Deno.makeTempDir({ prefix: "kiro-learn-bench-team-" });
  try {
    project = (await gitRemoteProject(root, "pay", { remote: "git@github.com:acme/pay.git" }))
      .projectId;
    await using pg = await startTestPostgres();
    const members = Array.from(
      { length: COLLECTORS },
      (_, i) => ({ role: `dev${i}`, password: `pw${i}`, projects: [] }),
    );
    await createTeamDatabase(pg, { members });
    for (const { role } of members) await grantTeamProject(pg, { role, key: project });
    const shared = await startCollectors(pg);
    const withSharing = await phase(shared, { pg, sharing: true });
    await disposeAll(shared);
    return {
      collectors: COLLECTORS,
      seconds_per_phase: SECONDS,
      events_per_s_per_collector: EVENTS_PER_S,
      saves_per_s_per_collector: SAVES_PER_S,
      without_sharing: report("without sharing", without),
      with_sharing: report("with sharing", withSharing),
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) {
  const sharing = Deno.args.includes("--pull-only") ? null : await sharingPhases();
  const pull = await runPullBench({
    local: arg("local", quick ? 5_000 : 50_000),
    pulled: arg("pulled", quick ? 3_000 : 50_000),
    burst: arg("burst", quick ? 1_000 : 10_000),
    log: (line) => console.log(line),
  });
  console.log(formatPullReport(pull));
  const results = { ...sharing, pull, quick, at: new Date().toISOString() };
  await Deno.mkdir(new URL(".", `file://${out}`).pathname, { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(results, null, 2) + "\n");
  console.log(`team: wrote ${out}`);
}
