import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRecord } from "@kiro-learn/core/testing";
import {
  composeEmbeddingInput,
  EmbedTimeoutError,
  MAX_EMBEDDING_INPUT,
  truncateText,
  withTimeout,
} from "./embedder.ts";

Deno.test("composeEmbeddingInput: title, summary, facts, concepts in blank-line sections", () => {
  const record = makeRecord({
    title: "Leap year parsing",
    summary: "Feb 29 was rejected.",
    facts: ["parseDate used a 28-day table", "fixed in date.ts"],
    concepts: ["dates", "validation"],
    files_touched: ["src/date.ts"],
  });
  assert.equal(
    composeEmbeddingInput(record),
    "Leap year parsing\n\nFeb 29 was rejected.\n\n" +
      "parseDate used a 28-day table\nfixed in date.ts\n\ndates, validation",
  );
});

Deno.test("composeEmbeddingInput: empty sections are left out, files and type never appear", () => {
  const record = makeRecord({
    title: "T",
    summary: "S",
    facts: [],
    concepts: [],
    files_touched: ["x.ts"],
    observation_type: "decision",
  });
  assert.equal(composeEmbeddingInput(record), "T\n\nS");
});

Deno.test("composeEmbeddingInput is deterministic and capped at 10,000 chars", () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 500 }),
      fc.string({ minLength: 1, maxLength: 4000 }),
      fc.array(fc.string({ minLength: 1, maxLength: 1000 }), { maxLength: 20 }),
      fc.array(fc.string({ minLength: 1, maxLength: 50 }), { maxLength: 20 }),
      (title, summary, facts, concepts) => {
        const record = { title, summary, facts, concepts };
        const text = composeEmbeddingInput(record);
        assert.equal(text, composeEmbeddingInput(structuredClone(record)));
        assert.ok(text.length <= MAX_EMBEDDING_INPUT);
      },
    ),
  );
});

Deno.test("truncateText never splits a surrogate pair", () => {
  const text = "a".repeat(9) + "😀" + "b";
  assert.equal(truncateText(text, 10), "a".repeat(9));
  assert.equal(truncateText(text, 11), "a".repeat(9) + "😀");
  assert.equal(truncateText("short", 10), "short");
});

Deno.test("withTimeout rejects late work with EmbedTimeoutError and clears its timer", async () => {
  assert.equal(await withTimeout(Promise.resolve(7), 50), 7);
  const { promise, resolve } = Promise.withResolvers<number>();
  await assert.rejects(withTimeout(promise, 10), EmbedTimeoutError);
  resolve(1);
});
