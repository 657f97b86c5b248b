/**
 * Team memory benchmark, large pull: two real collector daemons (A and B, separate data dirs,
 * their own PostgreSQL roles) sharing one project whose id comes from a real git repository with
 * a remote, through one PostgreSQL 15.
 *
 * B's store already holds `local` records (of a project of its own, plus 100 of the shared one)
 * and B runs its own session alone for a while: tool events (`POST /v1/events`, 20/s) and prompts
 * with their retrieval (2/s), as a busy session posts them. Then A comes online with `pulled`
 * records of the shared project and publishes them, and B pulls them all while it serves that
 * session (on a loaded machine B falls behind A and then pulls as fast as it can). Then A saves a
 * burst of `burst` records, and the bench waits until B has every one of them.
 *
 * Measures: B's failed requests (any answer but 200, or none) and the warnings and errors B
 * logged from its start to the burst's end (its background jobs': extraction, term-space
 * training, team sync); B's ingest and retrieval latency p50 / p99 alone, during the pull and
 * during the burst; how long A took to publish and B to pull; and the burst's lag: from A's last
 * publish (the newest `changed_at` PostgreSQL stamped on a row A wrote) to the moment B held the
 * whole burst.
 *
 * Run as part of `deno task bench team`, or alone with `team_bench.ts --pull-only` (sizes:
 * `--local=N --pulled=N --burst=N`).
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { buildNamespace } from "@kiro-learn/core/project";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import {
  formatMs,
  generateRecords,
  gitRemoteProject,
  makeEvent,
  makeFsWriteEvent,
  summarize,
} from "@kiro-learn/core/testing";
import {
  createTeamDatabase,
  grantTeamProject,
  postJson,
  startTeamDaemon,
  startTestPostgres,
  type TestDaemon,
} from "../testing/mod.ts";
import { connectTeam } from "../../daemon/team/mod.ts";
import { prefill, prefillInWorker } from "./_team_prefill.ts";

/** Tool events B's own session posts per second during the pull. */
const EVENTS_PER_S = 20;
/** Prompts (each with its retrieval) B's own session posts per second during the pull. */
const PROMPTS_PER_S = 2;
/** How long B's session runs alone before A comes online. */
const BASELINE_MS = 10_000;
const ALICE = { role: "alice", password: "alice-pw" };
const BOB = { role: "bob", password: "bob-pw" };
const WORDS = (
  "payments retry ledger invoice webhook refund idempotency cache parser date leap year " +
  "migration schema index queue worker timeout backoff token session cookie header route " +
  "deploy vault secret config build test flaky mock fixture snapshot lint format bundle"
).split(" ");

/** Sizes of one run. */
export interface PullBenchOptions {
  /** Records already in B's store. */
  local: number;
  /** Records A publishes when it comes online (B pulls them all). */
  pulled: number;
  /** Records A saves in one burst afterwards. */
  burst: number;
  /** Progress lines go here (default: none). */
  log?: (line: string) => void;
}

/** B's own request latencies over a stretch of the run. */
export interface Latencies {
  ingest_p50_ms: number;
  ingest_p99_ms: number;
  retrieval_p50_ms: number;
  retrieval_p99_ms: number;
}

/** What one run measured. */
export interface PullBenchReport {
  local: number;
  pulled: number;
  burst: number;
  /** B's requests during the pull and the burst: how many, and how many failed. */
  requests: number;
  failed_requests: number;
  /** The first few failures, as B answered them. */
  failures: string[];
  /** Warnings and errors B logged while it pulled (background jobs included). */
  logged_problems: number;
  /** Of those, how many say the database was locked. */
  logged_locked: number;
  /** The first few of them. */
  problems: string[];
  /** B's latencies with its session alone, before A comes online. */
  baseline: Latencies;
  /** While A publishes and B pulls. */
  during_pull: Latencies;
  /** While the burst goes from A to B. */
  during_burst: Latencies;
  /** From A coming online to PostgreSQL holding all `pulled` records. */
  publish_s: number;
  /** From A coming online to B holding all `pulled` records. */
  pull_s: number;
  /** From A's last publish of the burst to B holding all of it. */
  burst_lag_s: number;
  /** Records of the pull and the burst that never reached B. */
  missing: number;
  /**
   * What applying one pulled change costs (SQLite write, ms per change, 100 to a transaction),
   * into an empty store and into a copy of B's store with its `local` records.
   */
  apply_ms_per_change: { empty: number; full: number };
}

function text(seed: number, words: number): string {
  let x = seed * 2654435761 >>> 0;
  return Array.from({ length: words }, () => {
    x = (x * 1103515245 + 12345) >>> 0;
    return WORDS[x % WORDS.length];
  }).join(" ");
}

/** Changes this machine pulls in the apply-cost measurement. */
const COST_CHANGES = 2_000;

/**
 * Milliseconds per pulled change `teamApply` takes on the store at `path` (a copy of it: the
 * original is not touched), for `COST_CHANGES` new records of project `key`.
 */
async function applyCost(path: string | null, key: string): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-bench-cost-" });
  try {
    const copy = `${dir}/kiro-learn.db`;
    if (path) await Deno.copyFile(path, copy);
    const store = openSqliteStorage(copy);
    try {
      const namespace = buildNamespace("bob", key);
      // This machine has worked on the project: the changes land in its namespace.
      await store.commitExtraction({
        consumedSeqs: [],
        records: generateRecords(1, { seed: 7, namespace }).map((record) => ({ record })),
      });
      const changes = generateRecords(COST_CHANGES, {
        seed: 99_000_001,
        namespace: buildNamespace("alice", key),
      }).map(({ namespace: _, ...body }, i) => ({
        record_id: body.record_id,
        change_seq: i + 1,
        state: "live" as const,
        body,
        superseded_by: null,
        origin_actor: "alice",
        origin_role: "alice",
        origin_client: "m_bench",
        changed_by_role: "alice",
        changed_by_client: "m_bench",
      }));
      const started = performance.now();
      for (let at = 0; at < changes.length; at += 100) {
        const slice = changes.slice(at, at + 100);
        store.teamApply({ projectKey: key, changes: slice, lastSeq: slice.at(-1)!.change_seq });
      }
      return (performance.now() - started) / changes.length;
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Latencies of B's own requests over one stretch of the run. */
interface Samples {
  ingest: number[];
  retrieval: number[];
}

/** B's own session: tool events and prompts until `stop`, each timed and checked. */
function sessionLoad(b: TestDaemon, namespace: string) {
  let current: Samples = { ingest: [], retrieval: [] };
  const failures: string[] = [];
  let requests = 0;
  let running = true;
  const timed = async (kind: keyof Samples, body: unknown) => {
    const t = performance.now();
    requests++;
    try {
      const res = await postJson(b, "/v1/events", body);
      const answer = await res.text();
      if (res.status !== 200) failures.push(`HTTP ${res.status}: ${answer.slice(0, 200)}`);
    } catch (error) {
      failures.push(String(error));
    }
    current[kind].push(performance.now() - t);
  };
  const loop = async (perSecond: number, kind: keyof Samples, make: (n: number) => unknown) => {
    let n = 0;
    while (running) {
      const tick = performance.now();
      for (let i = 0; i < perSecond && running; i++) await timed(kind, make(n++));
      const rest = 1000 - (performance.now() - tick);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    }
  };
  const loops = [
    loop(
      EVENTS_PER_S,
      "ingest",
      (n) =>
        makeFsWriteEvent({ path: `src/payments/retry_${n % 50}.ts`, content: text(n, 20) }, {
          namespace,
          actor_id: "bob",
          session_id: "bench-session",
        }),
    ),
    loop(PROMPTS_PER_S, "retrieval", (n) =>
      makeEvent({
        namespace,
        actor_id: "bob",
        session_id: "bench-session",
        body: { type: "text", content: `how does the ${text(n, 3)} work?` },
      })),
  ];
  return {
    failures,
    get requests() {
      return requests;
    },
    /** The latencies since the last call (a stretch of the run ends). */
    take(): Samples {
      const out = current;
      current = { ingest: [], retrieval: [] };
      return out;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** p50 and p99 of one stretch (NaN where it saw no request: a burst can land between two). */
function latencies(samples: Samples): Latencies {
  const none = { p50: NaN, p99: NaN };
  const ingest = samples.ingest.length > 0 ? summarize(samples.ingest) : none;
  const retrieval = samples.retrieval.length > 0 ? summarize(samples.retrieval) : none;
  return {
    ingest_p50_ms: ingest.p50,
    ingest_p99_ms: ingest.p99,
    retrieval_p50_ms: retrieval.p50,
    retrieval_p99_ms: retrieval.p99,
  };
}

/** Warnings and errors in a daemon's log files. */
function loggedProblems(dataDir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(`${dataDir}/logs`)) {
    const lines = Deno.readTextFileSync(`${dataDir}/logs/${entry.name}`).split("\n");
    for (const line of lines) {
      if (/"level":"(warn|error)"/.test(line)) out.push(line);
    }
  }
  return out;
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms: number) {
  const deadline = Date.now() + ms;
  while (!await check()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs the scenario once with real daemons and a real PostgreSQL 15. */
export async function runPullBench(options: PullBenchOptions): Promise<PullBenchReport> {
  const log = options.log ?? (() => {});
  const root = await Deno.makeTempDir({ prefix: "kiro-learn-bench-pull-" });
  try {
    const shared = await gitRemoteProject(root, "pay", { remote: "git@github.com:acme/pay.git" });
    const own = await gitRemoteProject(root, "notes", { remote: "https://github.com/bob/notes" });
    await using pg = await startTestPostgres();
    await createTeamDatabase(pg, {
      members: [{ ...ALICE, projects: [] }, { ...BOB, projects: [] }],
    });
    for (const { role } of [ALICE, BOB]) {
      await grantTeamProject(pg, { role, key: shared.projectId });
    }
    const aNs = buildNamespace("alice", shared.projectId);
    const bNs = buildNamespace("bob", shared.projectId);
    const dirs = { a: `${root}/alice`, b: `${root}/bob` };
    for (const dir of Object.values(dirs)) await Deno.mkdir(dir, { mode: 0o700 });
    const settings = {
      extraction: { strategy: "heuristic", idleMs: 5000 },
      reconciliation: { enabled: false },
    };
    log(`pull: filling B with ${options.local} records and A with ${options.pulled}`);
    const mine = Math.min(100, options.local);
    await prefill({
      path: `${dirs.b}/kiro-learn.db`,
      namespace: buildNamespace("bob", own.projectId),
      n: options.local - mine,
    });
    await prefill({
      path: `${dirs.b}/kiro-learn.db`,
      namespace: bNs,
      n: mine,
      from: options.local,
    });
    const pulledIds = await prefill({
      path: `${dirs.a}/kiro-learn.db`,
      namespace: aNs,
      n: options.pulled,
    });
    const applyMs = {
      empty: await applyCost(null, shared.projectId),
      full: await applyCost(`${dirs.b}/kiro-learn.db`, shared.projectId),
    };
    log(
      `pull: applying a pulled change costs ${applyMs.empty.toFixed(2)} ms into an empty ` +
        `store, ${applyMs.full.toFixed(2)} ms into one of ${options.local} records`,
    );

    await using b = await startTeamDaemon(pg, BOB, { dataDir: dirs.b, settings });
    const bStore = new DatabaseSync(`${dirs.b}/kiro-learn.db`, { readOnly: true });
    // Records B pulled (its own, and those its extraction makes meanwhile, have no provenance).
    const pulledInB = bStore.prepare("SELECT count(*) AS n FROM team_provenance");
    const arrived = () => (pulledInB.get() as { n: number }).n;
    const admin = connectTeam(pg.url({ db: "team", password: "" }), {
      password: pg.adminPassword,
    });
    const published = async () => {
      const [{ n }] = await admin<{ n: number }[]>`
        SELECT count(*)::int AS n FROM kl_records WHERE changed_by_role = ${ALICE.role}`;
      return n;
    };
    const load = sessionLoad(b, bNs);
    try {
      // B's session alone first: the figures to compare the pull's with.
      await new Promise((r) => setTimeout(r, 2000));
      load.take();
      await new Promise((r) => setTimeout(r, BASELINE_MS));
      const baseline = latencies(load.take());
      const started = performance.now();
      await using _a = await startTeamDaemon(pg, ALICE, { dataDir: dirs.a, settings });
      let publishS = 0;
      await until(
        async () => {
          if (publishS === 0 && await published() >= options.pulled) {
            publishS = (performance.now() - started) / 1000;
          }
          return arrived() >= options.pulled;
        },
        "B to pull A's records",
        900_000,
      );
      const pullS = (performance.now() - started) / 1000;
      const duringPull = latencies(load.take());
      log(
        `pull: A published ${options.pulled} records in ${
          publishS.toFixed(1)
        } s; B had them all after ${pullS.toFixed(1)} s`,
      );

      // The burst: saved into A's store while A runs (its outbox takes them), as fast as they go,
      // from a Worker (B's session goes on meanwhile on this thread).
      const burstIds = await prefillInWorker({
        path: `${dirs.a}/kiro-learn.db`,
        namespace: aNs,
        n: options.burst,
        from: options.pulled,
      });
      await until(() => arrived() >= options.pulled + options.burst, "the burst on B", 600_000);
      const bHasAll = Date.now();
      // A's last publish: the newest change PostgreSQL stamped on a row A wrote.
      const [{ last }] = await admin<{ last: Date }[]>`
        SELECT max(changed_at) AS last FROM kl_records WHERE changed_by_role = ${ALICE.role}`;
      const burstLagS = (bHasAll - last.getTime()) / 1000;
      log(
        `pull: B had the ${options.burst}-record burst ${
          burstLagS.toFixed(1)
        } s after A's last publish`,
      );
      await load.stop();
      const duringBurst = latencies(load.take());
      const problems = loggedProblems(dirs.b);
      const have = bStore.prepare("SELECT 1 FROM memory_records WHERE record_id = ?");
      const missing = [...pulledIds, ...burstIds].filter((id) => !have.get(id)).length;
      return {
        local: options.local,
        pulled: options.pulled,
        burst: options.burst,
        requests: load.requests,
        failed_requests: load.failures.length,
        failures: load.failures.slice(0, 5),
        logged_problems: problems.length,
        logged_locked: problems.filter((l) => /locked/i.test(l)).length,
        problems: problems.slice(0, 5),
        baseline,
        during_pull: duringPull,
        during_burst: duringBurst,
        publish_s: publishS,
        pull_s: pullS,
        burst_lag_s: burstLagS,
        missing,
        apply_ms_per_change: applyMs,
      };
    } finally {
      await load.stop();
      await admin.end();
      bStore.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** The report as lines of figures. */
export function formatPullReport(r: PullBenchReport): string {
  const ms = (v: number) => Number.isNaN(v) ? "n/a (no request)" : formatMs(v);
  const l = (name: string, x: Latencies) =>
    `team pull: ${name.padEnd(12)} ingest p50 ${ms(x.ingest_p50_ms)} p99 ` +
    `${ms(x.ingest_p99_ms)}, retrieval p50 ${ms(x.retrieval_p50_ms)} p99 ` +
    ms(x.retrieval_p99_ms);
  return [
    `team pull: ${r.pulled} records into a store of ${r.local}, then a burst of ${r.burst}`,
    `team pull: ${r.failed_requests} of ${r.requests} requests to B failed; B logged ` +
    `${r.logged_problems} warnings/errors (${r.logged_locked} "database is locked")`,
    l("B alone", r.baseline),
    l("during pull", r.during_pull),
    l("during burst", r.during_burst),
    `team pull: A published all in ${r.publish_s.toFixed(1)} s, B held all ` +
    `${r.pull_s.toFixed(1)} s after A came online; B held the burst ` +
    `${r.burst_lag_s.toFixed(1)} s after A's last publish; ${r.missing} records missing`,
    `team pull: applying one pulled change takes ${r.apply_ms_per_change.empty.toFixed(2)} ms ` +
    `into an empty store, ${r.apply_ms_per_change.full.toFixed(2)} ms into one of ${r.local}`,
  ].join("\n");
}
