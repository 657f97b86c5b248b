import assert from "node:assert/strict";
import fc from "fast-check";
import { loadTokenizer, meanPool, tokenizeBatch } from "./_onnx_tokenizer.ts";
import { tinyTokenizerJson } from "../../tooling/testing/mod.ts";

async function tinyDir(extra: Record<string, unknown> = {}): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/tokenizer.json`,
    JSON.stringify({ ...tinyTokenizerJson(), ...extra }),
  );
  return dir;
}

Deno.test("tokenizes BERT-style: lower-cased WordPiece between [CLS] and [SEP]", async () => {
  const dir = await tinyDir();
  try {
    const { tokenizer, maxTokens, padId } = loadTokenizer(dir);
    assert.equal(maxTokens, 256);
    assert.equal(padId, 0);
    const b = tokenizeBatch(tokenizer, ["The CACHE test", "leap"], { maxTokens, padId });
    assert.equal(b.batch, 2);
    assert.equal(b.seq, 5);
    assert.deepEqual(b.ids, [2, 4, 5, 6, 3, 2, 10, 3, 0, 0]);
    assert.deepEqual(b.mask, [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
    assert.deepEqual(b.types, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("truncation keeps the first tokens and the final [SEP]; the cap comes from the folder", async () => {
  const dir = await tinyDir({ truncation: { max_length: 4 } });
  try {
    const { tokenizer, maxTokens, padId } = loadTokenizer(dir);
    assert.equal(maxTokens, 4);
    const b = tokenizeBatch(tokenizer, ["the cache test fails"], { maxTokens, padId });
    assert.deepEqual(b.ids, [2, 4, 5, 3]);
    await Deno.writeTextFile(`${dir}/sentence_bert_config.json`, '{"max_seq_length": 3}');
    assert.equal(loadTokenizer(dir).maxTokens, 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an empty text still gets one position; a broken tokenizer.json says so", async () => {
  const dir = await tinyDir();
  try {
    const { tokenizer, padId } = loadTokenizer(dir);
    const b = tokenizeBatch(tokenizer, [""], { maxTokens: 8, padId });
    assert.ok(b.seq >= 1);
    await Deno.writeTextFile(`${dir}/tokenizer.json`, "{not json");
    assert.throws(() => loadTokenizer(dir), /tokenizer\.json is not valid JSON/);
    await Deno.writeTextFile(`${dir}/tokenizer.json`, '{"model": {"type": "Nope"}}');
    assert.throws(() => loadTokenizer(dir), /tokenizer\.json cannot be used/);
    await Deno.remove(`${dir}/tokenizer.json`);
    assert.throws(() => loadTokenizer(dir), /tokenizer\.json is missing/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("meanPool averages real tokens only", () => {
  // Two texts, 3 positions, 2 dims; the second text has one padding position.
  const hidden = [1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 99, 99];
  const mask = [1, 1, 1, 1, 1, 0];
  const [a, b] = meanPool(hidden, mask, { batch: 2, seq: 3, dim: 2 });
  assert.deepEqual(Array.from(a), [3, 4]);
  assert.deepEqual(Array.from(b), [20, 30]);
  const [zero] = meanPool([5, 5], [0], { batch: 1, seq: 1, dim: 2 });
  assert.deepEqual(Array.from(zero), [0, 0]);
});

Deno.test("property: padding never changes a text's pooled vector", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 5 }),
      fc.array(fc.float({ min: -10, max: 10, noNaN: true }), {
        minLength: 6 * 4,
        maxLength: 6 * 4,
      }),
      fc.array(fc.float({ min: -10, max: 10, noNaN: true }), {
        minLength: 5 * 4,
        maxLength: 5 * 4,
      }),
      (len, dim, pad, real, junk) => {
        const hiddenReal = real.slice(0, len * dim);
        const [alone] = meanPool(hiddenReal, Array(len).fill(1), { batch: 1, seq: len, dim });
        const padded = [...hiddenReal, ...junk.slice(0, pad * dim)];
        const mask = [...Array(len).fill(1), ...Array(pad).fill(0)];
        const [withPad] = meanPool(padded, mask, { batch: 1, seq: len + pad, dim });
        assert.deepEqual(withPad, alone);
      },
    ),
  );
});
