// Some tests run the watcher on real timers and are written to be deterministic on a loaded
// machine: every "it happened" is awaited with `waitFor` (a hang limit, not a time bound), runs
// that must stay in progress are held by a gate, and assertions are on the order and count of
// runs, never on durations. Where a timing itself is the subject (the idle gap, the cool-down), the
// test injects a fake clock and checks it exactly.
import assert from "node:assert/strict";
import {
  type BreakerState,
  ExtractionWatcher,
  OPEN_TURN_MAX_WAIT_MS,
  type RunOutcome,
  type WatcherOptions,
} from "./_watcher.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds; only a hang (10 s) fails it. */
async function waitFor(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited ${limitMs} ms for ${what}`);
    await sleep(5);
  }
}

/** What one run saw when it started. */
interface RunSeen {
  /** Bytes queued (what it consumes on success). */
  bytes: number;
  /** The project's breaker state as `states()` showed it. */
  breaker: BreakerState;
}

interface Harness {
  watcher: ExtractionWatcher;
  runs: RunSeen[];
  /** Notifications, run starts and run ends, in order. */
  log: string[];
  queued: { bytes: number };
}

function harness(
  overrides: Partial<WatcherOptions> = {},
  run: (n: number) => Promise<RunOutcome> | RunOutcome = () => ({ ok: true, consumed: 1 }),
): Harness {
  const runs: RunSeen[] = [];
  const log: string[] = [];
  const queued = { bytes: 0 };
  const watcher: ExtractionWatcher = new ExtractionWatcher({
    idleMs: 50,
    sizeThresholdBytes: 1000,
    breakerThreshold: 3,
    breakerCooldownMs: 1000,
    queuedBytes: () => Promise.resolve(queued.bytes),
    run: async (projectId) => {
      const snapshot = queued.bytes; // like the real run: consume up to a watermark
      const breaker = watcher.states().find((s) => s.project_id === projectId)!.breaker;
      runs.push({ bytes: snapshot, breaker });
      log.push(`run ${runs.length} start (${snapshot} bytes)`);
      try {
        const outcome = await run(runs.length);
        if (outcome.ok) queued.bytes -= snapshot;
        return outcome;
      } finally {
        log.push(`run ${runs.length} end`);
      }
    },
    ...overrides,
  });
  return { watcher, runs, log, queued };
}

/** A promise the test resolves by hand, to hold a run in progress. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

Deno.test("the size threshold fires a run at once, not the idle gap", async () => {
  // An idle gap far longer than the test: any run must come from the threshold.
  const h = harness({ idleMs: 600_000 });
  h.queued.bytes = 999;
  h.watcher.notify("p", 999);
  await sleep(20);
  assert.equal(h.runs.length, 0, "below the threshold nothing runs");
  h.queued.bytes = 1000;
  h.watcher.notify("p", 1);
  await waitFor(() => h.runs.length === 1, "the threshold run");
  assert.equal(h.runs[0].bytes, 1000);
  await h.watcher.close();
  assert.equal(h.runs.length, 1);
});

Deno.test("a trigger during a run re-arms instead of being dropped", async () => {
  const held = gate();
  const h = harness({}, async (n) => {
    if (n === 1) await held.wait;
    return { ok: true, consumed: 1 };
  });
  h.queued.bytes = 10;
  h.watcher.notify("p", 10);
  await waitFor(() => h.runs.length === 1, "the first run");
  assert.equal(h.watcher.states()[0].running, true);
  h.queued.bytes += 7; // arrived during the run, past its watermark
  h.log.push("notify during run");
  h.watcher.notify("p", 7);
  held.open();
  await waitFor(() => h.runs.length === 2, "the re-armed run");
  await h.watcher.close();
  assert.deepEqual(h.log, [
    "run 1 start (10 bytes)",
    "notify during run",
    "run 1 end",
    "run 2 start (7 bytes)",
    "run 2 end",
  ]);
  assert.equal(h.queued.bytes, 0, "both batches consumed");
});

Deno.test("a retired project stops being watched, at once or when its run ends", async () => {
  // Idle: its timer is cancelled and it leaves the status list.
  const idle = harness({ idleMs: 600_000 });
  idle.watcher.notify("old", 5);
  idle.watcher.notify("new", 5);
  idle.watcher.retire("old");
  assert.deepEqual(idle.watcher.states().map((s) => s.project_id), ["new"]);
  await idle.watcher.close();
  assert.equal(idle.runs.length, 0);
  // Running: the run finishes, rows left under the old id (none should be) are not re-armed.
  const held = gate();
  const h = harness({}, async () => {
    await held.wait;
    return { ok: false, consumed: 0, error: "rows moved away" };
  });
  h.queued.bytes = 10;
  h.watcher.notify("old", 10);
  await waitFor(() => h.runs.length === 1, "the run");
  h.watcher.retire("old");
  assert.equal(h.watcher.states()[0].running, true, "listed while its run is in progress");
  held.open();
  await waitFor(() => h.watcher.states().length === 0, "the retired state to go");
  await sleep(100); // longer than the idle gap: a re-armed run would start within it
  assert.equal(h.runs.length, 1);
  await h.watcher.close();
});

Deno.test("the breaker opens after 3 failures and half-opens after the cool-down", async () => {
  let healthy = false;
  const h = harness(
    { idleMs: 50, breakerCooldownMs: 1000 },
    () => ({ ok: healthy, consumed: healthy ? 1 : 0 }),
  );
  h.queued.bytes = 10;
  h.watcher.notify("p", 10);
  await waitFor(() => h.watcher.states()[0].breaker === "open", "the breaker to open");
  assert.equal(h.runs.length, 3, "three failed runs, then the breaker holds");
  assert.equal(h.watcher.states()[0].failures, 3);
  assert.ok(h.watcher.states()[0].open_until !== null);
  // No run while open: the probe below saw the breaker half-open (a run while open would have
  // seen "open"); the fake-clock test checks the cool-down to the millisecond. A fixed sleep
  // here would race the cool-down on a loaded machine.
  healthy = true;
  await waitFor(() => h.runs.length === 4, "the probe run");
  await waitFor(() => !h.watcher.states()[0].running, "the probe to end");
  // The probe ran only once the cool-down was over (half-open), never while open.
  assert.deepEqual(h.runs.map((r) => r.breaker), ["closed", "closed", "closed", "half_open"]);
  const [state] = h.watcher.states();
  assert.equal(state.breaker, "closed");
  assert.equal(state.failures, 0);
  assert.equal(state.open_until, null);
  assert.equal(state.last_run?.ok, true);
  await h.watcher.close();
  assert.equal(h.runs.length, 4, "nothing left to run after the probe consumed the queue");
});

Deno.test("a failed probe re-opens the breaker for another cool-down", async () => {
  const breakers: BreakerState[] = [];
  const h = harness(
    { idleMs: 50, breakerCooldownMs: 1000, onBreaker: (_, state) => breakers.push(state) },
    () => ({ ok: false, consumed: 0 }),
  );
  h.queued.bytes = 10;
  h.watcher.notify("p", 10);
  await waitFor(() => h.watcher.states()[0].breaker === "open", "the breaker to open");
  assert.equal(h.runs.length, 3);
  const firstOpenUntil = h.watcher.states()[0].open_until!;
  await waitFor(() => h.runs.length === 4, "the probe run");
  await waitFor(
    () => h.watcher.states()[0].failures === 4 && h.watcher.states()[0].breaker === "open",
    "the breaker to re-open",
  );
  assert.deepEqual(h.runs.map((r) => r.breaker), ["closed", "closed", "closed", "half_open"]);
  const secondOpenUntil = h.watcher.states()[0].open_until!;
  assert.ok(secondOpenUntil > firstOpenUntil, `${secondOpenUntil} after ${firstOpenUntil}`);
  assert.deepEqual(breakers, ["open", "open"]);
  await h.watcher.close();
  assert.equal(h.runs.length, 4, "no run during the second cool-down");
});

Deno.test("startup arm runs projects that already have queued rows; close waits", async () => {
  const held = gate();
  const h = harness({}, async () => {
    await held.wait;
    return { ok: true, consumed: 1 };
  });
  h.queued.bytes = 5;
  h.watcher.arm("p", 5);
  h.watcher.arm("empty", 0);
  await waitFor(() => h.runs.length === 1, "the armed run");
  const closing = h.watcher.close().then(() => h.log.push("closed"));
  await sleep(20); // a close that did not wait for the run would resolve here
  held.open();
  await closing;
  assert.deepEqual(h.log, ["run 1 start (5 bytes)", "run 1 end", "closed"]);
  assert.deepEqual(h.watcher.states().map((s) => s.project_id), ["p"]);
});

Deno.test("a throwing run counts as a failure, never escapes", async () => {
  const h = harness({ idleMs: 50 }, () => Promise.reject(new Error("boom")));
  h.queued.bytes = 1;
  h.watcher.notify("p", 1);
  await waitFor(() => (h.watcher.states()[0].failures) >= 1, "the failed run to count");
  const [state] = h.watcher.states();
  assert.equal(state.last_run?.ok, false);
  assert.equal(state.running, false);
  await h.watcher.close();
  assert.equal(h.queued.bytes, 1, "a failed run consumes nothing");
});

/** Time that moves only when the test says so. */
class FakeClock {
  #now = 1_000_000;
  #next = 1;
  #timers = new Map<number, { at: number; fn: () => void }>();
  now = () => this.#now;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, fn });
    return id;
  };
  clearTimeout = (handle: unknown) => {
    this.#timers.delete(handle as number);
  };
  /** Moves time forward, firing every timer that comes due, in order. */
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    for (;;) {
      const due = [...this.#timers].filter(([, t]) => t.at <= until)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].fn();
      await sleep(0);
    }
    this.#now = until;
    await sleep(0);
  }
}

Deno.test("with an injected clock: the idle gap and the breaker's cool-down are exact", async () => {
  const clock = new FakeClock();
  const starts: number[] = [];
  let ok = false;
  const watcher = new ExtractionWatcher({
    idleMs: 30_000,
    sizeThresholdBytes: 1_000_000,
    breakerThreshold: 1,
    breakerCooldownMs: 60_000,
    clock,
    run: () => {
      starts.push(clock.now());
      return Promise.resolve({ ok, consumed: ok ? 10 : 0 });
    },
    queuedBytes: () => Promise.resolve(ok ? 0 : 10),
  });
  const t0 = clock.now();
  watcher.notify("p", 10);
  await clock.advance(29_999);
  assert.deepEqual(starts, [], "not a millisecond early");
  await clock.advance(1);
  assert.deepEqual(starts, [t0 + 30_000]);
  // That run failed: the breaker is open for exactly the cool-down, then one probe runs.
  assert.equal(watcher.states().find((s) => s.project_id === "p")?.breaker, "open");
  ok = true;
  await clock.advance(59_999);
  assert.equal(starts.length, 1);
  await clock.advance(1);
  assert.deepEqual(starts, [t0 + 30_000, t0 + 90_000]);
  assert.equal(watcher.states().find((s) => s.project_id === "p")?.breaker, "closed");
  await watcher.close();
});

Deno.test("the idle gap fires one run, and each event restarts the gap", async () => {
  // On the fake clock: on real timers a loaded machine can stretch a quarter-gap sleep past
  // the whole gap, and the run would fire between the events.
  const w = fakeClockWatcher();
  const gap = 30_000;
  // Seven events a quarter gap apart span 1.5 gaps: a gap counted from the first event would
  // fire a run before the last events arrive. Restarted by each event, it fires once, after all.
  for (let i = 1; i <= 7; i++) {
    w.notify(5);
    if (i < 7) await w.clock.advance(gap / 4);
  }
  const last = w.clock.now();
  assert.deepEqual(w.starts, [], "no run while events keep coming");
  await w.clock.advance(gap);
  assert.deepEqual(w.starts, [last + gap], "one run, a gap after the last event");
  // Nothing is left, so nothing is re-armed: one more gap passes without a run.
  await w.clock.advance(2 * gap);
  assert.equal(w.starts.length, 1);
  await w.watcher.close();
});

/**
 * A watcher on the fake clock whose runs consume what was queued when they started; `starts` are
 * run times. `holdFirstRun`: the first run stays in progress until it resolves.
 */
function fakeClockWatcher(
  options: { sizeThresholdBytes?: number; holdFirstRun?: Promise<void> } = {},
) {
  const clock = new FakeClock();
  const starts: number[] = [];
  const queued = { bytes: 0 };
  const watcher = new ExtractionWatcher({
    idleMs: 30_000,
    sizeThresholdBytes: options.sizeThresholdBytes ?? 1_000_000,
    breakerThreshold: 3,
    breakerCooldownMs: 60_000,
    clock,
    run: async () => {
      starts.push(clock.now());
      const consumed = queued.bytes;
      if (starts.length === 1) await options.holdFirstRun;
      queued.bytes -= consumed;
      return { ok: true, consumed };
    },
    queuedBytes: () => Promise.resolve(queued.bytes),
  });
  const notify = (
    bytes: number,
    info: Parameters<ExtractionWatcher["notify"]>[2] = {},
  ) => {
    queued.bytes += bytes;
    watcher.notify("p", bytes, info);
  };
  const due = () => watcher.states().find((s) => s.project_id === "p")?.next_attempt_at ?? null;
  return { clock, starts, watcher, notify, due };
}

const CLAUDE_PROMPT = { kind: "prompt", surface: "claude-code" } as const;

Deno.test("an open Claude Code turn is not extracted at the idle gap, but at the cap", async () => {
  const w = fakeClockWatcher();
  const t0 = w.clock.now();
  w.notify(10, CLAUDE_PROMPT);
  assert.equal(
    w.due(),
    new Date(t0 + OPEN_TURN_MAX_WAIT_MS).toISOString(),
    "status tells the wait",
  );
  await w.clock.advance(30_000);
  assert.deepEqual(w.starts, [], "the turn's tool uses have not arrived: no run at the idle gap");
  await w.clock.advance(OPEN_TURN_MAX_WAIT_MS - 30_000 - 1);
  assert.deepEqual(w.starts, [], "not a millisecond early");
  await w.clock.advance(1);
  assert.deepEqual(w.starts, [t0 + OPEN_TURN_MAX_WAIT_MS], "a turn whose end never came");
  await w.watcher.close();
});

Deno.test("an open Codex CLI turn waits for its end too (its tool uses come with it)", async () => {
  const w = fakeClockWatcher();
  const t0 = w.clock.now();
  w.notify(10, { kind: "prompt", surface: "codex" });
  assert.equal(w.due(), new Date(t0 + OPEN_TURN_MAX_WAIT_MS).toISOString());
  await w.clock.advance(30_000);
  assert.deepEqual(w.starts, [], "no run at the idle gap while the turn is open");
  w.notify(10, { kind: "session_summary", surface: "codex" });
  await w.clock.advance(30_000);
  assert.deepEqual(w.starts, [t0 + 60_000], "the turn's end re-arms the idle gap");
  await w.watcher.close();
});

Deno.test("the turn's tool uses or its end re-arm the ordinary idle gap", async () => {
  for (const later of [{ kind: "tool_use" }, { kind: "session_summary" }] as const) {
    const w = fakeClockWatcher();
    w.notify(10, CLAUDE_PROMPT);
    await w.clock.advance(120_000); // a two-minute turn
    const end = w.clock.now();
    w.notify(10, { ...later, surface: "claude-code" });
    assert.equal(w.due(), new Date(end + 30_000).toISOString(), later.kind);
    await w.clock.advance(29_999);
    assert.deepEqual(w.starts, [], later.kind);
    await w.clock.advance(1);
    assert.deepEqual(w.starts, [end + 30_000], `${later.kind}: prompt and turn in one run`);
    await w.watcher.close();
  }
});

Deno.test("an earlier turn's tool uses and end, delivered late, do not end the open turn", async () => {
  const w = fakeClockWatcher();
  const t0 = w.clock.now();
  const time = (offsetMs: number) => new Date(t0 + offsetMs).toISOString();
  w.notify(10, { ...CLAUDE_PROMPT, at: time(0) }); // turn 2's prompt
  await w.clock.advance(5_000);
  // Turn 1's tool use and Stop (they happened before turn 2's prompt) arrive now.
  w.notify(10, { kind: "tool_use", surface: "claude-code", at: time(-20_000) });
  w.notify(10, { kind: "session_summary", surface: "claude-code", at: time(-10_000) });
  assert.equal(w.due(), new Date(t0 + OPEN_TURN_MAX_WAIT_MS).toISOString(), "still turn 2's wait");
  await w.clock.advance(60_000);
  assert.deepEqual(w.starts, [], "turn 2 is still open");
  // Turn 2's own tool use (it happened after its prompt) ends the wait: the idle gap again.
  const end = w.clock.now();
  w.notify(10, { kind: "tool_use", surface: "claude-code", at: time(50_000) });
  await w.clock.advance(30_000);
  assert.deepEqual(w.starts, [end + 30_000]);
  await w.watcher.close();
});

Deno.test("a Kiro prompt fires at the idle gap, as before (its tool hooks fire live)", async () => {
  for (const surface of ["kiro-cli", "kiro-ide"] as const) {
    const w = fakeClockWatcher();
    const t0 = w.clock.now();
    w.notify(10, { kind: "prompt", surface });
    await w.clock.advance(30_000);
    assert.deepEqual(w.starts, [t0 + 30_000], surface);
    await w.watcher.close();
  }
});

Deno.test("an open Claude Code turn still fires at once on the size threshold", async () => {
  const w = fakeClockWatcher({ sizeThresholdBytes: 100 });
  const t0 = w.clock.now();
  w.notify(60, { kind: "tool_use", surface: "claude-code" });
  w.notify(60, CLAUDE_PROMPT);
  await w.clock.advance(0);
  assert.deepEqual(w.starts, [t0]);
  await w.watcher.close();
});

Deno.test("a turn opened during a run waits after the run for its end, up to the cap", async () => {
  const held = gate();
  const w = fakeClockWatcher({ holdFirstRun: held.wait });
  const t0 = w.clock.now();
  w.notify(10);
  await w.clock.advance(30_000);
  assert.deepEqual(w.starts, [t0 + 30_000]);
  await w.clock.advance(5_000);
  w.notify(10, CLAUDE_PROMPT); // during the run
  held.open();
  await w.clock.advance(0);
  assert.equal(w.due(), new Date(t0 + 35_000 + OPEN_TURN_MAX_WAIT_MS).toISOString());
  await w.clock.advance(OPEN_TURN_MAX_WAIT_MS - 1);
  assert.equal(w.starts.length, 1, "the open turn is waited for after the run too");
  await w.clock.advance(1);
  assert.deepEqual(w.starts, [t0 + 30_000, t0 + 35_000 + OPEN_TURN_MAX_WAIT_MS]);
  await w.watcher.close();
});
