// Embeddings through the real daemon, launched exactly as `serve` launches it.
import assert from "node:assert/strict";
import { makeRecord } from "@kiro-learn/core/testing";
import { postJson, startTestDaemon, type TestDaemon } from "../../tooling/testing/mod.ts";
import { embeddingModelId } from "./embedder.ts";
import { addModel } from "./models.ts";
import { onnxRuntimeBinDir, USE_LITE_WORKER, useLiteReadPaths } from "../permissions/mod.ts";
import { writeTinyModel } from "../../tooling/testing/mod.ts";

async function embeddingStatus(daemon: TestDaemon): Promise<Record<string, unknown>> {
  const res = await daemon.fetch("/v1/stats");
  const body = await res.json();
  return { ...body.embedding, embeddings_present: body.embeddings_present };
}

async function waitForStatus(
  daemon: TestDaemon,
  check: (s: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++) {
    last = await embeddingStatus(daemon);
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`status never matched: ${JSON.stringify(last)}`);
}

/** Waits until one of `pid`'s threads runs at `nice` (field 19 of a task's `/proc` stat). */
async function waitForNicedThread(pid: number, nice: number): Promise<void> {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const stat = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/stat`).catch(() => "");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]) === nice) return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no thread of the daemon runs at nice ${nice}`);
}

async function cmdline(pid: number): Promise<string[]> {
  return (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split("\0");
}

Deno.test("use-lite (default): the daemon loads the model, embeds saved records, stays FFI-free", async () => {
  await using daemon = await startTestDaemon({ settings: { embedding: { backend: "use-lite" } } });
  const args = await cmdline(daemon.pid());
  assert.ok(args.includes("--unstable-worker-options"));
  assert.ok(!args.some((a) => a.startsWith("--allow-ffi")));
  // One system call only: the model's Workers lower their own threads.
  assert.deepEqual(args.filter((a) => a.startsWith("--allow-sys")), ["--allow-sys=setPriority"]);
  const read = args.find((a) => a.startsWith("--allow-read="))!.slice("--allow-read=".length);
  for (const path of [USE_LITE_WORKER, ...useLiteReadPaths()]) {
    assert.ok(read.split(",").includes(path), path);
  }
  const ready = await waitForStatus(daemon, (s) => s.state === "ready");
  assert.equal(ready.backend, "use-lite");
  // The model's id plus the version of what is embedded (a new input version re-embeds).
  assert.equal(ready.model_id, "use-lite@0.2.0+in4");
  assert.equal(ready.dim, 512);
  // Inside the daemon's sandbox the model's Worker still lowers its own thread (background).
  await waitForNicedThread(daemon.pid(), 10);
  // Memory shows in the stats, readable under serve's permissions (no other --allow-sys).
  const memory = (await (await daemon.fetch("/v1/stats")).json()).memory;
  assert.ok(memory.rss >= memory.heap_total && memory.heap_total >= memory.heap_used, memory);
  assert.ok(memory.heap_used > 0 && memory.external > 0, JSON.stringify(memory));

  const record = makeRecord({ title: "Leap year parsing", summary: "Feb 29 was rejected." });
  const saved = await postJson(daemon, "/v1/memories", record);
  assert.equal(saved.status, 200);
  await saved.body?.cancel();
  const embedded = await waitForStatus(
    daemon,
    (s) =>
      (s.backfill as { done: number }).done === 1 && s.embeddings_present === 1 &&
      (s.backfill as { state: string }).state === "idle",
  );
  assert.equal((embedded.backfill as { done: number }).done, 1);
  const deleted = await daemon.fetch(`/v1/memories/${record.record_id}`, { method: "DELETE" });
  assert.equal(deleted.status, 200);
  await deleted.body?.cancel();
});

Deno.test("onnx with no model installed: a visible failure, records still stored", async () => {
  await using daemon = await startTestDaemon({ settings: { embedding: { backend: "onnx" } } });
  const args = await cmdline(daemon.pid());
  const run = args.find((a) => a.startsWith("--allow-run="))?.slice("--allow-run=".length);
  assert.ok(run?.split(",").includes(Deno.execPath()), "deno itself, for the onnx child");
  assert.ok(!args.some((a) => a.startsWith("--allow-ffi")), "the daemon never holds FFI");
  const failed = await waitForStatus(daemon, (s) => s.state === "failed");
  assert.match(String(failed.error), /no ONNX model is installed/);
  const record = makeRecord({ title: "Kept without a vector" });
  const saved = await postJson(daemon, "/v1/memories", record);
  assert.equal(saved.status, 200);
  await saved.body?.cancel();
  const got = await daemon.fetch(`/v1/memories/${record.record_id}`);
  assert.equal(got.status, 200);
  await got.body?.cancel();
});

Deno.test("onnx with an installed model: the child loads it and records get its embeddings", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "kiro-learn-onnx-" });
  const src = await Deno.makeTempDir();
  await writeTinyModel(src, { dim: 8 });
  const added = await addModel(src, { dataDir, name: "tiny" });
  await Deno.remove(src, { recursive: true });
  await using daemon = await startTestDaemon({
    dataDir,
    settings: { embedding: { backend: "onnx" } },
  });
  const ready = await waitForStatus(daemon, (s) => s.state === "ready");
  assert.equal(ready.model_id, embeddingModelId(added.model_id));
  assert.equal(ready.dim, 8);
  // The child holds FFI (scoped to onnxruntime's folder) and read of the model folder; nothing else.
  const children = (await Deno.readTextFile(`/proc/${daemon.pid()}/task/${daemon.pid()}/children`))
    .trim().split(/\s+/).map(Number);
  const childArgs = await Promise.all(children.map(cmdline));
  const onnxChild = childArgs.find((a) => a.some((x) => x.endsWith("onnx_child.ts")));
  assert.ok(onnxChild, "the onnx child runs under the daemon");
  assert.deepEqual(onnxChild.filter((a) => a.startsWith("--allow")), [
    `--allow-read=${added.dir}`,
    `--allow-ffi=${onnxRuntimeBinDir()}`,
  ]);
  const saved = await postJson(daemon, "/v1/memories", makeRecord({ title: "the cache test" }));
  await saved.body?.cancel();
  await waitForStatus(daemon, (s) => s.embeddings_present === 1);
});
