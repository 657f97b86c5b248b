import assert from "node:assert/strict";
import { makeRecord } from "../testing/mod.ts";
import {
  GATE_IGNORED_FEATURES,
  gateScore,
  type LexicalCandidate,
  linearScore,
  promptIdentifiers,
  rerank,
  RERANK_FEATURES,
  RERANK_MODEL,
  rerankFeatures,
} from "./rerank.ts";

function candidate(
  bm25: number,
  overrides: Parameters<typeof makeRecord>[0] = {},
): LexicalCandidate {
  return {
    record: makeRecord(overrides),
    bm25,
    bm25Title: bm25 / 2,
    bm25Summary: bm25 / 4,
    bm25Files: 0,
  };
}

Deno.test("the shipped model has a weight per feature and a gate weight per feature plus bias", () => {
  assert.equal(RERANK_MODEL.weights.length, RERANK_FEATURES.length);
  assert.equal(RERANK_MODEL.gateWeights.length, RERANK_FEATURES.length + 1);
  assert.ok(RERANK_MODEL.gate > 0 && RERANK_MODEL.gate < 1);
});

Deno.test("promptIdentifiers keeps identifiers and paths, not plain words", () => {
  assert.deepEqual(
    promptIdentifiers("Fix flow_del in lib/netdev-dpdk.c, see getUserById() and plain words."),
    ["flow_del", "lib/netdev-dpdk.c", "getuserbyid"],
  );
});

Deno.test("features: one row per candidate, normalised BM25, prefix, identifiers, coverage", () => {
  const query = "netdev-dpdk: fix crash in flow_del";
  const a = candidate(10, {
    title: "netdev-dpdk: add flow_del offload",
    summary: "Adds flow_del.",
    files_touched: ["lib/netdev-dpdk.c"],
  });
  const b = candidate(5, { title: "docs: typo", summary: "A crash note." });
  const terms = [
    { term: "netdev", idf: 3 },
    { term: "dpdk", idf: 3 },
    { term: "crash", idf: 2 },
    { term: "flow", idf: 1 },
    { term: "del", idf: 2 },
  ];
  const [fa, fb] = rerankFeatures(query, [a, b], { terms });
  const f = (row: number[], name: string) => row[RERANK_FEATURES.indexOf(name)];
  assert.equal(fa.length, RERANK_FEATURES.length);
  assert.equal(f(fa, "bm25"), 1);
  assert.equal(f(fb, "bm25"), 0.5);
  assert.equal(f(fa, "same_prefix"), 1);
  assert.equal(f(fb, "same_prefix"), 0);
  assert.ok(f(fa, "identifiers") > 0);
  assert.equal(f(fb, "identifiers"), 0);
  assert.ok(f(fa, "coverage") > f(fb, "coverage"));
  assert.equal(f(fa, "inverse_rank"), 1);
  assert.equal(f(fb, "inverse_rank"), 0.5);
});

Deno.test("rerank orders by the model and keeps BM25 order on ties", () => {
  const cands = [candidate(3, { title: "x" }), candidate(2, { title: "y" })];
  const flat = { weights: RERANK_FEATURES.map(() => 0), gateWeights: [], gate: 0 };
  assert.deepEqual(
    rerank("q", cands, { terms: [], model: flat }).map((c) => c.record.title),
    ["x", "y"],
  );
  // A model that prefers the lower BM25 reverses them.
  const inverted = { ...flat, weights: RERANK_FEATURES.map((f) => f === "bm25" ? -1 : 0) };
  assert.deepEqual(
    rerank("q", cands, { terms: [], model: inverted }).map((c) => c.record.title),
    ["y", "x"],
  );
});

Deno.test("gateScore is a logistic of the features and the bias", () => {
  const features = RERANK_FEATURES.map(() => 1);
  const model = {
    weights: [],
    gateWeights: [...RERANK_FEATURES.map(() => 0), 0],
    gate: 0.5,
  };
  assert.equal(gateScore(features, model), 0.5);
  model.gateWeights[RERANK_FEATURES.length] = 100;
  assert.ok(gateScore(features, model) > 0.99);
  assert.equal(linearScore([1, 2], [3, 4]), 11);
});

Deno.test("term_space: neutral without a space, and the shipped gate gives it no weight", () => {
  const at = RERANK_FEATURES.indexOf("term_space");
  const rows = rerankFeatures("crash in the port", [
    {
      record: makeRecord({ title: "port crash" }),
      bm25: 2,
      bm25Title: 2,
      bm25Summary: 0,
      bm25Files: 0,
    },
    { record: makeRecord({ title: "docs" }), bm25: 1, bm25Title: 0, bm25Summary: 1, bm25Files: 0 },
  ], { terms: [] });
  assert.deepEqual(rows.map((r) => r[at]), [0, 0]);
  // Whether a namespace has a space must not move the gate: same score whatever the column.
  assert.equal(RERANK_MODEL.gateWeights[at], 0);
  const best = [...rows[0]];
  const without = gateScore(best, RERANK_MODEL);
  best[at] = 1;
  assert.equal(gateScore(best, RERANK_MODEL), without);
  assert.ok(RERANK_MODEL.weights[at] > 0, "the trained ranking weight of the column");
  // Nor does how old the records are.
  for (const name of ["term_space", "record_age", "newness_rank"]) {
    assert.ok(GATE_IGNORED_FEATURES.includes(RERANK_FEATURES.indexOf(name)), name);
  }
  for (const i of GATE_IGNORED_FEATURES) assert.equal(RERANK_MODEL.gateWeights[i], 0);
});

Deno.test("term_origin: the oldest candidates holding a prompt term score highest", () => {
  const query = "fix crash in flow offload";
  const terms = [
    { term: "offload", idf: 4 },
    { term: "crash", idf: 2 },
    { term: "flow", idf: 1 },
  ];
  // BM25 order: newest first; the origin of "offload" is the oldest record.
  const newest = candidate(9, {
    title: "fix offload crash",
    created_at: "2025-03-01T00:00:00.000Z",
  });
  const middle = candidate(8, { title: "tweak offload", created_at: "2024-06-01T00:00:00.000Z" });
  const oldest = candidate(5, {
    title: "add flow offload",
    created_at: "2023-01-01T00:00:00.000Z",
  });
  const at = RERANK_FEATURES.indexOf("term_origin");
  const rows = rerankFeatures(query, [newest, middle, oldest], { terms });
  // Only "offload" is held by two or more candidates (crash and flow by one each): total idf 4.
  assert.deepEqual(rows.map((r) => r[at]), [4 / 3 / 4, 4 / 2 / 4, 1]);
  // Records of the same instant share the better place: no BM25-order tie-break.
  const same = { created_at: "2023-01-01T00:00:00.000Z" };
  const tied = rerankFeatures(query, [
    candidate(9, { ...same, title: "offload" }),
    candidate(5, { ...same, title: "offload" }),
    candidate(4, { title: "offload", created_at: "2024-01-01T00:00:00.000Z" }),
  ], { terms });
  assert.deepEqual(tied.map((r) => r[at]), [1, 1, 1 / 3]);
  // No term shared by two candidates: nothing to order, the column is 0 for all.
  const alone = rerankFeatures(query, [newest, candidate(1, { title: "flow" })], {
    terms: [{ term: "crash", idf: 2 }, { term: "flow", idf: 1 }],
  });
  assert.deepEqual(alone.map((r) => r[at]), [0, 0]);
});

Deno.test("file_neighbours: the best BM25 of another candidate sharing a changed path", () => {
  const a = candidate(10, { files_touched: ["lib/a.c", "NEWS"] });
  const b = candidate(5, { files_touched: ["lib/a.c"] });
  const c = candidate(8, { files_touched: ["lib/c.c"] });
  const d = candidate(2, { files_touched: ["lib/a.c", "lib/c.c"] });
  const at = RERANK_FEATURES.indexOf("file_neighbours");
  const rows = rerankFeatures("q", [a, b, c, d], { terms: [] });
  // a's best neighbour is b (0.5; d is lower), b's and d's is a (1), c's is d (0.2).
  assert.deepEqual(rows.map((r) => r[at]), [0.5, 1, 0.2, 1]);
  const lone = rerankFeatures("q", [candidate(3, { files_touched: [] })], { terms: [] });
  assert.equal(lone[0][at], 0);
});

Deno.test("time columns: age from the namespace's newest record, not the clock; newest first", () => {
  const at = (created_at: string, title: string) =>
    candidate(1, { created_at, title, files_touched: [] });
  const old = at("2020-01-01T00:00:00.000Z", "old");
  const tie1 = at("2020-01-31T00:00:00.000Z", "tie one");
  const tie2 = at("2020-01-31T00:00:00.000Z", "tie two");
  const rows = rerankFeatures("q", [old, tie1, tie2], {
    terms: [],
    newest: "2020-03-01T00:00:00.000Z",
  });
  const f = (row: number[], name: string) => row[RERANK_FEATURES.indexOf(name)];
  // 60 and 30 days before the namespace's newest record (years before today's date).
  assert.ok(Math.abs(f(rows[0], "record_age") - Math.log1p(60) / 10) < 1e-9);
  assert.ok(Math.abs(f(rows[1], "record_age") - Math.log1p(30) / 10) < 1e-9);
  // Records of the same instant share the better place.
  assert.deepEqual(rows.map((r) => f(r, "newness_rank")), [1 / 3, 1, 1]);
  // Without the namespace's newest record, the newest candidate is "now".
  const own = rerankFeatures("q", [old, tie1], { terms: [] });
  assert.equal(f(own[1], "record_age"), 0);
});

Deno.test("the shipped model prefers the newer of two otherwise equal records", () => {
  const same = { title: "netdev-dpdk: rework rx queues", files_touched: ["lib/netdev-dpdk.c"] };
  const older = candidate(5, { ...same, created_at: "2021-01-01T00:00:00.000Z" });
  const newer = candidate(5, { ...same, created_at: "2023-06-01T00:00:00.000Z" });
  const ranked = rerank("netdev-dpdk: fix rx queue crash", [older, newer], {
    terms: [{ term: "netdev", idf: 3 }, { term: "rx", idf: 2 }],
    newest: "2023-06-02T00:00:00.000Z",
  });
  assert.equal(ranked[0].record.created_at, "2023-06-01T00:00:00.000Z");
});
