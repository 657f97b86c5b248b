import assert from "node:assert/strict";
import * as ort from "onnxruntime-node";
import { TINY_VOCAB, tinyModelWeights, tinyOnnxModel, tinyTokenizerJson } from "./tiny_onnx.ts";

Deno.test("the hand-written ONNX model loads and computes (E[ids] + T[types]) · W", async () => {
  const dim = 6;
  const session = await ort.InferenceSession.create(tinyOnnxModel({ dim, seed: 7 }));
  try {
    assert.deepEqual(session.inputNames, ["input_ids", "attention_mask", "token_type_ids"]);
    assert.deepEqual(session.outputNames, ["last_hidden_state"]);
    const ids = [2, 5, 6, 3];
    const types = [0, 0, 1, 1];
    const t = (a: number[]) => new ort.Tensor("int64", BigInt64Array.from(a, BigInt), [1, 4]);
    const out = await session.run({
      input_ids: t(ids),
      attention_mask: t([1, 1, 1, 1]),
      token_type_ids: t(types),
    });
    const hidden = out.last_hidden_state;
    assert.deepEqual(hidden.dims, [1, 4, dim]);
    const w = tinyModelWeights({ dim, seed: 7 });
    const data = hidden.data as Float32Array;
    for (let s = 0; s < ids.length; s++) {
      for (let j = 0; j < dim; j++) {
        let expected = 0;
        for (let i = 0; i < dim; i++) {
          const x = w.wordEmbeddings[ids[s] * dim + i] + w.typeEmbeddings[types[s] * dim + i];
          expected += x * w.projection[i * dim + j];
        }
        assert.ok(Math.abs(data[s * dim + j] - expected) < 1e-5, `position ${s}, dim ${j}`);
      }
    }
  } finally {
    await session.release();
  }
});

Deno.test("the same seed gives the same bytes; the tokenizer covers the vocabulary", () => {
  assert.deepEqual(tinyOnnxModel({ seed: 3 }), tinyOnnxModel({ seed: 3 }));
  assert.notDeepEqual(tinyOnnxModel({ seed: 3 }), tinyOnnxModel({ seed: 4 }));
  const json = tinyTokenizerJson() as { model: { vocab: Record<string, number> } };
  assert.equal(Object.keys(json.model.vocab).length, TINY_VOCAB.length);
});
