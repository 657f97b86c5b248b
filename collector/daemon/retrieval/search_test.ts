import assert from "node:assert/strict";
import { type LexicalCandidate, RERANK_FEATURES } from "@kiro-learn/core/search";
import { makeRecord } from "@kiro-learn/core/testing";
import { createSearcher, isSearchMode, type SearchTrace } from "./search.ts";

function cand(title: string, bm25: number, files: string[] = []): LexicalCandidate {
  return {
    record: makeRecord({ title, files_touched: files }),
    bm25,
    bm25Title: bm25,
    bm25Summary: 0,
    bm25Files: 0,
  };
}

const bm25Only = RERANK_FEATURES.map((f) => f === "bm25" ? 1 : 0);

function sources(candidates: LexicalCandidate[], corpus: number) {
  return {
    searchCandidates: () => Promise.resolve({ candidates, terms: [], corpus }),
    searchLexical: () => Promise.resolve([{ record: makeRecord({ title: "lexical" }), score: 1 }]),
    searchVector: () => Promise.resolve([{ record: makeRecord({ title: "vector" }), score: 1 }]),
  };
}

Deno.test("ranked: the model's order, the same evidence once, at most `limit`", async () => {
  const search = createSearcher(
    sources([cand("a", 3, ["x.ts"]), cand("A", 2, ["x.ts"]), cand("b", 1), cand("c", 0.5)], 10),
    { model: { weights: bm25Only, gateWeights: [...bm25Only.map(() => 0), 10], gate: 0.5 } },
  );
  const hits = await search("ns", "q", { limit: 2 });
  // "A" has a's title (case aside) and files: the same change remembered twice counts once.
  assert.deepEqual(hits.map((h) => h.record.title), ["a", "b"]);
});

Deno.test("the gate withholds everything in a large store, never in a small one", async () => {
  const closed = { weights: bm25Only, gateWeights: [...bm25Only.map(() => 0), -10], gate: 0.5 };
  const traces: SearchTrace[] = [];
  const big = createSearcher(sources([cand("a", 3)], 10_000), {
    model: closed,
    onSearch: (t) => traces.push(t),
  });
  assert.deepEqual(await big("ns", "q", { limit: 5 }), []);
  assert.equal(traces[0].gated, true);
  const small = createSearcher(sources([cand("a", 3)], 20), { model: closed });
  assert.equal((await small("ns", "q", { limit: 5 })).length, 1);
});

Deno.test("modes: lexical and vector go to their own sources; hybrid falls back to lexical", async () => {
  const search = createSearcher(sources([], 0));
  assert.equal((await search("ns", "q", { limit: 5, mode: "lexical" }))[0].record.title, "lexical");
  assert.equal((await search("ns", "q", { limit: 5, mode: "vector" }))[0].record.title, "vector");
  assert.equal((await search("ns", "q", { limit: 5, mode: "hybrid" }))[0].record.title, "lexical");
  assert.deepEqual(await search("ns", "q", { limit: 5 }), []);
  assert.ok(isSearchMode("ranked") && !isSearchMode("magic"));
});

Deno.test("candidates: the whole pool the reranker orders, in BM25 order, ungated", async () => {
  const closed = { weights: bm25Only, gateWeights: [...bm25Only.map(() => 0), -10], gate: 0.5 };
  const pool = [cand("a", 3, ["x.ts"]), cand("A", 2, ["x.ts"]), cand("b", 1)];
  const search = createSearcher(sources(pool, 10_000), { model: closed });
  // The gate withholds everything from the ranked answer; the pool is still what it ordered.
  assert.deepEqual(await search("ns", "q", { limit: 1 }), []);
  const hits = await search("ns", "q", { limit: 1, mode: "candidates" });
  assert.deepEqual(hits.map((h) => h.record.title), ["a", "A", "b"]);
  assert.ok(isSearchMode("candidates"));
});

Deno.test("ranked: the namespace's newest record is the reranker's now", async () => {
  const old = {
    ...cand("old", 1),
    record: makeRecord({ title: "old", created_at: "2020-01-01T00:00:00.000Z" }),
  };
  const recent = {
    ...cand("recent", 1),
    record: makeRecord({ title: "recent", created_at: "2020-02-01T00:00:00.000Z" }),
  };
  const ageOnly = RERANK_FEATURES.map((f) => f === "record_age" ? 1 : 0);
  const search = createSearcher({
    ...sources([old, recent], 10),
    searchCandidates: () =>
      Promise.resolve({
        candidates: [old, recent],
        terms: [],
        corpus: 10,
        newest: "2020-12-31T00:00:00.000Z",
      }),
  }, {
    model: { weights: ageOnly, gateWeights: [...ageOnly.map(() => 0), 10], gate: 0.5 },
  });
  // A weight on age ranks the older first: both scores measured from the namespace's newest.
  const hits = await search("ns", "q", { limit: 2 });
  assert.deepEqual(hits.map((h) => h.record.title), ["old", "recent"]);
  assert.ok(Math.abs(hits[1].score - Math.log1p(334) / 10) < 1e-9);
});
