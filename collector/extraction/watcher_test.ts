import assert from "node:assert/strict";
import { ExtractionWatcher, type RunOutcome, type WatcherOptions } from "./watcher.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Harness {
  watcher: ExtractionWatcher;
  runs: number[];
  queued: { bytes: number };
}

function harness(
  overrides: Partial<WatcherOptions> = {},
  run: (n: number) => Promise<RunOutcome> | RunOutcome = () => ({ ok: true, consumed: 1 }),
): Harness {
  const runs: number[] = [];
  const queued = { bytes: 0 };
  const watcher = new ExtractionWatcher({
    idleMs: 40,
    sizeThresholdBytes: 1000,
    breakerThreshold: 3,
    breakerCooldownMs: 150,
    queuedBytes: () => Promise.resolve(queued.bytes),
    run: async () => {
      runs.push(Date.now());
      const snapshot = queued.bytes; // like the real run: consume up to a watermark
      const outcome = await run(runs.length);
      if (outcome.ok) queued.bytes -= snapshot;
      return outcome;
    },
    ...overrides,
  });
  return { watcher, runs, queued };
}

Deno.test("the size threshold fires a run at once", async () => {
  const h = harness({ idleMs: 10_000 });
  h.queued.bytes = 1000;
  h.watcher.notify("p", 999);
  await sleep(5);
  assert.equal(h.runs.length, 0);
  h.watcher.notify("p", 1);
  await sleep(5);
  assert.equal(h.runs.length, 1);
  await h.watcher.close();
});

Deno.test("the idle gap fires a run, and each event restarts the gap", async () => {
  const h = harness();
  h.queued.bytes = 20;
  for (let i = 0; i < 4; i++) {
    h.watcher.notify("p", 5);
    await sleep(20);
  }
  assert.equal(h.runs.length, 0);
  await sleep(60);
  assert.equal(h.runs.length, 1);
  await h.watcher.close();
});

Deno.test("a trigger during a run re-arms instead of being dropped", async () => {
  const h = harness({}, async () => {
    await sleep(50);
    return { ok: true, consumed: 1 };
  });
  h.queued.bytes = 10;
  h.watcher.notify("p", 10);
  await sleep(60); // the idle run started at 40 ms and lasts 50 ms
  assert.equal(h.runs.length, 1);
  h.queued.bytes += 10; // arrived during the run, past its watermark
  h.watcher.notify("p", 10);
  await sleep(200);
  assert.equal(h.runs.length, 2);
  await h.watcher.close();
});

Deno.test("the breaker opens after 3 failures and half-opens after the cool-down", async () => {
  let healthy = false;
  const h = harness(
    { idleMs: 10, breakerCooldownMs: 600 },
    () => ({ ok: healthy, consumed: healthy ? 1 : 0 }),
  );
  h.queued.bytes = 10;
  h.watcher.notify("p", 10);
  await sleep(200);
  assert.equal(h.runs.length, 3, "three failed runs, then the breaker holds");
  assert.equal(h.watcher.states()[0].breaker, "open");
  await sleep(150);
  assert.equal(h.runs.length, 3, "no runs while open");
  healthy = true;
  await sleep(800);
  assert.equal(h.runs.length, 4, "one probe after the cool-down");
  const [state] = h.watcher.states();
  assert.equal(state.breaker, "closed");
  assert.equal(state.failures, 0);
  await h.watcher.close();
});

Deno.test("a failed probe re-opens the breaker for another cool-down", async () => {
  const h = harness({ idleMs: 10, breakerCooldownMs: 300 }, () => ({ ok: false, consumed: 0 }));
  h.queued.bytes = 10;
  h.watcher.notify("p", 10);
  await sleep(150);
  assert.equal(h.runs.length, 3);
  await sleep(400);
  assert.equal(h.runs.length, 4);
  assert.equal(h.watcher.states()[0].breaker, "open");
  await h.watcher.close();
});

Deno.test("startup arm runs projects that already have queued rows; close waits", async () => {
  const h = harness({}, async () => {
    await sleep(30);
    return { ok: true, consumed: 1 };
  });
  h.queued.bytes = 5;
  h.watcher.arm("p", 5);
  h.watcher.arm("empty", 0);
  await sleep(50);
  await h.watcher.close();
  assert.equal(h.runs.length, 1);
  assert.deepEqual(h.watcher.states().map((s) => s.project_id), ["p"]);
});

Deno.test("a throwing run counts as a failure, never escapes", async () => {
  const h = harness({ idleMs: 10 }, () => Promise.reject(new Error("boom")));
  h.queued.bytes = 1;
  h.watcher.notify("p", 1);
  await sleep(30);
  assert.ok(h.watcher.states()[0].failures >= 1);
  await h.watcher.close();
});
