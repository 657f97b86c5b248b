import assert from "node:assert/strict";
import { EMBED_BATCH, embedInBatches } from "./_embed_batches.ts";

Deno.test("embedInBatches: every text's vector in order, in calls of at most EMBED_BATCH", async () => {
  const calls: number[] = [];
  // A model whose vector is the text's number: order is checkable.
  const embedder = {
    embed(texts: string[]): Promise<Float32Array[]> {
      calls.push(texts.length);
      return Promise.resolve(texts.map((t) => Float32Array.of(Number(t))));
    },
  };
  const texts = Array.from({ length: EMBED_BATCH * 2 + 3 }, (_, i) => String(i));
  const vectors = await embedInBatches(embedder, texts);
  assert.deepEqual(vectors.map((v) => v[0]), texts.map(Number));
  assert.deepEqual(calls, [EMBED_BATCH, EMBED_BATCH, 3]);
  assert.deepEqual(await embedInBatches(embedder, []), []);
  assert.deepEqual(calls.length, 3, "no call for no text");
});
