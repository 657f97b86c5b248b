import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRecord } from "@kiro-learn/core/testing";
import {
  composeEmbeddingInput,
  cutAtWord,
  EMBEDDING_INPUT_VERSION,
  embeddingModelId,
  embeddingText,
  EmbedTimeoutError,
  MAX_EMBEDDING_INPUT,
  MAX_QUERY_EMBEDDING_INPUT,
  queryEmbeddingInput,
  truncateText,
  withInputVersion,
  withTimeout,
} from "./embedder.ts";

Deno.test("composeEmbeddingInput: title, summary, facts, concepts as sentences on one line", () => {
  const record = makeRecord({
    title: "Leap year",
    summary: "Feb 29 failed.\nThe table\tis fixed.",
    facts: ["28-day table", "  in date.ts  "],
    concepts: ["dates", "validation"],
    files_touched: ["src/date.ts"],
  });
  assert.equal(
    composeEmbeddingInput(record),
    "Leap year. Feb 29 failed. The table is fixed. 28-day table. in date.ts. dates, validation.",
  );
});

Deno.test("composeEmbeddingInput: empty sections are left out, files and type never appear", () => {
  const record = makeRecord({
    title: "T?",
    summary: "S",
    facts: [" ", ""],
    concepts: [" "],
    files_touched: ["x.ts"],
    observation_type: "decision",
  });
  assert.equal(composeEmbeddingInput(record), "T? S.");
});

Deno.test("composeEmbeddingInput keeps the start of the record, cut at a word boundary", () => {
  const title = "Sessions ended at the 60-minute access JWT lifetime";
  const summary = "word ".repeat(200).trim();
  const text = composeEmbeddingInput({ title, summary, facts: ["a later fact"], concepts: [] });
  assert.ok(text.length <= MAX_EMBEDDING_INPUT, `${text.length}`);
  assert.ok(text.length > MAX_EMBEDDING_INPUT - "word ".length, "the budget is used");
  assert.ok(text.startsWith(`${title}. word word`));
  assert.ok(text.endsWith(" word"), "no word is cut in half");
  assert.ok(!text.includes("later fact"));
  // A single unbroken token longer than the budget is cut hard; before it, at the last space.
  const title2 = "x".repeat(Math.floor(MAX_EMBEDDING_INPUT * 2 / 3));
  const long = composeEmbeddingInput({
    title: title2,
    summary: "y".repeat(MAX_EMBEDDING_INPUT * 2),
    facts: [],
    concepts: [],
  });
  assert.equal(long, `${title2}.`);
  const unbroken = composeEmbeddingInput({
    title: "x".repeat(MAX_EMBEDDING_INPUT * 2),
    summary: "",
    facts: [],
    concepts: [],
  });
  assert.equal(unbroken, "x".repeat(MAX_EMBEDDING_INPUT));
  assert.equal(cutAtWord("z".repeat(500), 300), "z".repeat(300));
  assert.equal(cutAtWord("ab cd", 2), "ab", "a cut just before a space keeps the word");
});

Deno.test("composeEmbeddingInput is deterministic, one line, and capped", () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 200 }),
      fc.string({ minLength: 1, maxLength: 4000 }),
      fc.array(fc.string({ minLength: 1, maxLength: 500 }), { maxLength: 20 }),
      fc.array(fc.string({ minLength: 1, maxLength: 50 }), { maxLength: 20 }),
      (title, summary, facts, concepts) => {
        const record = { title, summary, facts, concepts };
        const text = composeEmbeddingInput(record);
        assert.equal(text, composeEmbeddingInput(structuredClone(record)));
        assert.ok(text.length <= MAX_EMBEDDING_INPUT);
        assert.ok(!/\s\s|[\n\t\r]|^\s|\s$/u.test(text), JSON.stringify(text));
        // Only a hard cut can split a surrogate pair's text; truncateText never does.
        assert.ok(!/[\ud800-\udbff]$/.test(text));
      },
    ),
  );
});

Deno.test("the stored model id carries the input version", async () => {
  assert.equal(embeddingModelId("use-lite@0.2.0"), `use-lite@0.2.0+in${EMBEDDING_INPUT_VERSION}`);
  let closed = false;
  const inner = {
    model_id: "m@1",
    dim: 2,
    embed: (texts: string[]) => Promise.resolve(texts.map(() => Float32Array.of(1, 0))),
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
  const versioned = withInputVersion(inner);
  assert.equal(versioned.model_id, embeddingModelId("m@1"));
  assert.equal(versioned.dim, 2);
  assert.deepEqual(await versioned.embed(["a"]), [Float32Array.of(1, 0)]);
  assert.equal(versioned.tokenCounts, undefined);
  await versioned.close();
  assert.ok(closed);
  // Token counts pass through when the model gives them (the service groups texts by them).
  const counting = withInputVersion({
    ...inner,
    tokenCounts: (texts) => Promise.resolve(texts.map((t) => t.length + 1)),
  });
  assert.deepEqual(await counting.tokenCounts?.(["ab", ""]), [3, 1]);
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

Deno.test("queries keep a longer budget than records: one text, not a backfill's thousands", () => {
  const prompt = "why does the parser crash ".repeat(30);
  const query = queryEmbeddingInput(prompt);
  assert.ok(query.length <= MAX_QUERY_EMBEDDING_INPUT && query.length > MAX_EMBEDDING_INPUT);
  assert.ok(query.length > MAX_QUERY_EMBEDDING_INPUT - "crash ".length, "the budget is used");
  const record = composeEmbeddingInput({ title: prompt, summary: "", facts: [], concepts: [] });
  assert.ok(record.length <= MAX_EMBEDDING_INPUT);
  assert.ok(query.startsWith(record), "the record's text is the start of the same query's");
});

Deno.test("embeddingText is the record's whole text; composeEmbeddingInput cuts it", () => {
  const record = makeRecord({ title: "Long one", summary: "word ".repeat(200) });
  const whole = embeddingText(record);
  assert.ok(whole.length > MAX_EMBEDDING_INPUT, "not cut");
  assert.ok(whole.startsWith("Long one. word word"));
  assert.equal(composeEmbeddingInput(record), cutAtWord(whole, MAX_EMBEDDING_INPUT));
});
