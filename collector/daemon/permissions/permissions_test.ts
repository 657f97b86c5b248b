import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSettings } from "@kiro-learn/core/settings";
import { DENO_ENV } from "@kiro-learn/core/launch";
import { LINGER_PROBE, outsideConnections, runDenoScript } from "@kiro-learn/core/testing";
import {
  DAEMON_ENTRY,
  DAEMON_GLIBC_TUNABLES,
  DAEMON_V8_FLAGS,
  daemonArgs,
  daemonEnv,
} from "./permissions.ts";

// A Worker that builds many small objects (as tokenizing a namespace's records does).
const OBJECTS_WORKER = `
self.onmessage = () => {
  const objects = [];
  const byKey = new Map();
  for (let i = 0; i < 200000; i++) {
    objects.push({ at: i, text: "term" + i, pair: [i, i + 1] });
    byKey.set("key" + i, { at: i });
  }
  self.postMessage(objects.length + byKey.size);
};
`;

// A Worker that frees one large buffer, then holds many mid-size ones (as the SVD's dense
// buffers and the term-space builder's typed arrays do): glibc's default thresholds then serve
// them from the thread's arena and keep them after the Worker ends.
const BUFFERS_WORKER = `
self.onmessage = () => {
  let large = new Float64Array(30 << 17);
  large.fill(1);
  large = null;
  const buffers = [];
  for (let i = 0; i < 100; i++) buffers.push(new Float64Array(64 << 10).fill(i));
  self.postMessage(buffers.length);
};
`;

// Resident set (MiB) before the Worker, at its peak, and after it has ended.
const MAIN = `
const mib = () => Deno.memoryUsage().rss / 1048576;
const start = mib();
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
const answered = new Promise((resolve) => worker.onmessage = resolve);
worker.postMessage(null);
await answered;
const peak = mib();
worker.terminate();
await new Promise((resolve) => setTimeout(resolve, 1000));
console.log(JSON.stringify({ start, peak, after: mib() }));
`;

// A burst of short-lived objects on the main thread (a ranked search, a training's pages of
// records): the young generation's committed size (MiB) after it.
const BURST = `
import { getHeapSpaceStatistics } from "node:v8";
const kept = [];
for (let round = 0; round < 40; round++) {
  const page = [];
  for (let i = 0; i < 20000; i++) page.push({ title: "title " + i + round, files: ["a/" + i] });
  kept.push(page[0]);
  await new Promise((resolve) => setTimeout(resolve, 0));
}
const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
console.log(JSON.stringify({ young: young.space_size / 1048576, kept: kept.length }));
`;

/** Runs `main` as the daemon is run (its V8 flags and environment); what it prints. */
async function runAsDaemon(main: string, worker = ""): Promise<Record<string, number>> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-daemon-memory-" });
  try {
    await Deno.writeTextFile(join(dir, "worker.js"), worker);
    await Deno.writeTextFile(join(dir, "main.js"), main);
    const v8 = daemonArgs(loadSettings({ env: { KIRO_LEARN_HOME: dir } }))
      .filter((a) => a.startsWith("--v8-flags="));
    assert.deepEqual(v8, [`--v8-flags=${DAEMON_V8_FLAGS.join(",")}`]);
    const run = await runDenoScript(join(dir, "main.js"), {
      flags: v8,
      cwd: dir,
      env: daemonEnv(),
    });
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `worker` as the daemon is run (its V8 flags and environment); its RSS in MiB. */
async function workerRss(worker: string): Promise<{ start: number; peak: number; after: number }> {
  const rss = await runAsDaemon(MAIN, worker);
  assert.ok(rss.peak - rss.start > 40, `the Worker should have grown the process: ${rss.peak}`);
  return { start: rss.start, peak: rss.peak, after: rss.after };
}

function describe({ start, peak, after }: { start: number; peak: number; after: number }) {
  return `RSS ${start.toFixed(0)} -> ${peak.toFixed(0)} MiB at the Worker's peak, still ` +
    `${after.toFixed(0)} MiB after it ended`;
}

Deno.test("the daemon's V8 flags give an ended Worker's heap back to the system", async () => {
  const rss = await workerRss(OBJECTS_WORKER);
  // Without the flag about 70% of the Worker's growth stays resident; with it about 15%.
  assert.ok(rss.after - rss.start < (rss.peak - rss.start) / 2, describe(rss));
});

Deno.test("the daemon's malloc settings give an ended Worker's buffers back to the system", async () => {
  const rss = await workerRss(BUFFERS_WORKER);
  // Without them about 47% of the Worker's growth stays resident; with them about 20%.
  assert.ok(rss.after - rss.start < (rss.peak - rss.start) * 0.35, describe(rss));
});

Deno.test("the daemon's V8 flags keep the young generation small after a burst", async () => {
  const { young } = await runAsDaemon(BURST);
  // Without the cap V8 grows it to ~48 MiB here; with it, ~4.5 MiB.
  assert.ok(young < 8, `young generation ${young} MiB after the burst`);
});

Deno.test("daemonEnv puts the user's own GLIBC_TUNABLES last, so they win", () => {
  const before = Deno.env.get("GLIBC_TUNABLES");
  try {
    Deno.env.delete("GLIBC_TUNABLES");
    assert.deepEqual(daemonEnv(), { ...DENO_ENV, GLIBC_TUNABLES: DAEMON_GLIBC_TUNABLES });
    Deno.env.set("GLIBC_TUNABLES", "glibc.malloc.arena_max=2");
    assert.deepEqual(daemonEnv(), {
      ...DENO_ENV,
      GLIBC_TUNABLES: `${DAEMON_GLIBC_TUNABLES}:glibc.malloc.arena_max=2`,
    });
  } finally {
    if (before === undefined) Deno.env.delete("GLIBC_TUNABLES");
    else Deno.env.set("GLIBC_TUNABLES", before);
  }
});

Deno.test("the daemon as start and serve run it makes no outside connection with an empty DENO_DIR", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-daemon-outside-" });
  try {
    const settings = loadSettings({ env: { KIRO_LEARN_HOME: dir } });
    const args = daemonArgs(settings).map((a) => a === DAEMON_ENTRY ? LINGER_PROBE : a);
    assert.ok(args.includes(LINGER_PROBE));
    const seen = await outsideConnections([Deno.execPath(), ...args], { env: daemonEnv() });
    assert.match(seen.output, /lingered/);
    assert.deepEqual(seen.requests, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
