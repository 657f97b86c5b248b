// The onnx backend as the collector runs it: a child process with its own narrow permissions.
import assert from "node:assert/strict";
import { createOnnxEmbedder, onnxChildArgs } from "./onnx.ts";
import { ONNX_CHILD, onnxRuntimeBinDir } from "../permissions/mod.ts";
import { writeTinyModel } from "../../tooling/testing/mod.ts";
import { norm } from "@kiro-learn/core/search";

Deno.test("the child's flags: read of the model folder, FFI of onnxruntime's folder, nothing else", () => {
  const args = onnxChildArgs("/data/models/mini");
  const allow = args.filter((a) => a.startsWith("--allow"));
  assert.deepEqual(allow, [
    "--allow-read=/data/models/mini",
    `--allow-ffi=${onnxRuntimeBinDir()}`,
  ]);
  assert.ok(args.includes("--no-prompt") && args.includes("--cached-only"));
  assert.ok(args.includes("--no-remote"), "no remote import() from the FFI process");
  assert.equal(args.at(-2), ONNX_CHILD);
  assert.match(onnxRuntimeBinDir(), /onnxruntime-node\/bin\/napi-v6\/\w+\/\w+$/);
});

Deno.test("embeds through the child process: dimension, normalised vectors, batch order", async () => {
  const dir = await Deno.makeTempDir();
  await writeTinyModel(dir, { dim: 16 });
  const embedder = await createOnnxEmbedder({ modelDir: dir, modelId: "onnx:tiny@test" });
  try {
    assert.equal(embedder.model_id, "onnx:tiny@test");
    assert.equal(embedder.dim, 16);
    const texts = Array.from({ length: 40 }, (_, i) => `the cache test ${"fails ".repeat(i % 7)}`);
    const vectors = await embedder.embed(texts);
    assert.equal(vectors.length, 40);
    for (const v of vectors) assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    const [again] = await embedder.embed([texts[13]]);
    assert.deepEqual(again, vectors[13]);
    // Concurrent calls are answered in order, each with its own vectors.
    const [a, b] = await Promise.all([embedder.embed(["leap"]), embedder.embed(["year", "fix"])]);
    assert.equal(a.length, 1);
    assert.equal(b.length, 2);
  } finally {
    await embedder.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the child turns onnxruntime's telemetry off: no mat-debug log in /tmp, where it ignores TMPDIR", async () => {
  const dir = await Deno.makeTempDir();
  await writeTinyModel(dir);
  const embedder = await createOnnxEmbedder({ modelDir: dir, modelId: "x" });
  // onnxruntime-node's telemetry SDK opens `/tmp/mat-debug-<pid>.log` when a session starts.
  const log = `/tmp/mat-debug-${embedder.pid}.log`;
  try {
    assert.equal((await embedder.embed(["leap"])).length, 1);
    assert.throws(() => Deno.statSync(log), Deno.errors.NotFound, `${log} was written`);
  } finally {
    await embedder.close();
    await Deno.remove(log).catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing or broken model rejects with the child's reason", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(
      createOnnxEmbedder({ modelDir: dir, modelId: "x" }),
      /onnx model failed to load: .*tokenizer\.json is missing/,
    );
    await writeTinyModel(dir);
    await Deno.writeTextFile(`${dir}/model.onnx`, "garbage");
    await assert.rejects(
      createOnnxEmbedder({ modelDir: dir, modelId: "x" }),
      /model\.onnx cannot be loaded/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a child that dies is reported once through onDead and fails later calls", async () => {
  const dir = await Deno.makeTempDir();
  await writeTinyModel(dir);
  const dead = Promise.withResolvers<Error>();
  const embedder = await createOnnxEmbedder({
    modelDir: dir,
    modelId: "x",
    onDead: (e) => dead.resolve(e),
  });
  try {
    Deno.kill(embedder.pid, "SIGKILL");
    assert.match((await dead.promise).message, /onnx child exited/);
    await assert.rejects(embedder.embed(["leap"]), /onnx child exited/);
  } finally {
    await embedder.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("with the child's flags, code reads only the model folder and nothing else", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const probe = new URL("./testdata/permission_probe.ts", import.meta.url).pathname;
    const args = onnxChildArgs(dir).map((a) => a === ONNX_CHILD ? probe : a);
    const out = await new Deno.Command(Deno.execPath(), { args, stderr: "inherit" }).output();
    assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), {
      read_allowed_dir: "allowed",
      read_outside: "denied",
      write_allowed_dir: "denied",
      net: "denied",
      env: "denied",
      run: "denied",
      ffi_other: "prompt",
      sys: "denied",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
