// In-process inference (tests run with -A; the collector runs this only in the onnx child).
import assert from "node:assert/strict";
import { loadOnnxModel } from "./_onnx_core.ts";
import { tinyModelWeights, writeTinyModel } from "../../tooling/testing/mod.ts";
import { cosineSimilarity, norm } from "@kiro-learn/core/search";

Deno.test("loads the tiny model: dimension, one normalised vector per text, in input order", async () => {
  const dir = await Deno.makeTempDir();
  await writeTinyModel(dir, { dim: 12 });
  const model = await loadOnnxModel(dir, { threads: 1 });
  try {
    assert.equal(model.dim, 12);
    const texts = ["the cache test fails", "leap year", "build error fix retry the parser date"];
    const vectors = await model.embed(texts);
    assert.equal(vectors.length, 3);
    for (const v of vectors) {
      assert.equal(v.length, 12);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    }
    // Each text alone gives the same vector as in the padded batch: the mask is honoured.
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await model.embed([texts[i]]);
      assert.ok(cosineSimilarity(alone, vectors[i]) > 0.99999, `text ${i}`);
    }
    assert.deepEqual(await model.embed([]), []);
  } finally {
    await model.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the pooled vector is the normalised mean of the token states", async () => {
  const dir = await Deno.makeTempDir();
  await writeTinyModel(dir, { dim: 4, seed: 11 });
  const model = await loadOnnxModel(dir, { threads: 1 });
  try {
    const w = tinyModelWeights({ dim: 4, seed: 11 });
    const ids = [2, 10, 11, 3]; // [CLS] leap year [SEP]
    const mean = new Float64Array(4);
    for (const id of ids) {
      for (let j = 0; j < 4; j++) {
        let h = 0;
        for (let i = 0; i < 4; i++) {
          h += (w.wordEmbeddings[id * 4 + i] + w.typeEmbeddings[i]) * w.projection[i * 4 + j];
        }
        mean[j] += h / ids.length;
      }
    }
    const [v] = await model.embed(["Leap YEAR"]);
    assert.ok(cosineSimilarity(v, Float32Array.from(mean)) > 0.99999);
  } finally {
    await model.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a file that is not an ONNX model is refused with the reason", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await writeTinyModel(dir);
    await Deno.writeFile(`${dir}/model.onnx`, new TextEncoder().encode("not a model"));
    await assert.rejects(loadOnnxModel(dir), /model\.onnx cannot be loaded/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
