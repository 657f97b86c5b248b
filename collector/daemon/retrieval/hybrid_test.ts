import assert from "node:assert/strict";
import fc from "fast-check";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import { makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { createAssembler } from "./assembler.ts";
import {
  createHybridSearcher,
  DEFAULT_COLLAPSE_ABOVE,
  DEFAULT_MIN_SIMILARITY,
  type HybridSources,
  type HybridTrace,
  minSimilarityFor,
} from "./hybrid.ts";
import type { VectorHit } from "../embedding/mod.ts";

const OTHER_NS = `/actor/tester/project/${"b".repeat(64)}/`;

async function withStorage<T>(fn: (s: SqliteStorage) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/test.db`);
  try {
    return await fn(storage);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function sources(
  storage: SqliteStorage,
  vector: Pick<HybridSources, "embedQuery" | "searchVectors">,
): HybridSources {
  return {
    searchLexical: (ns, q, o) => storage.searchLexical(ns, q, o),
    getRecords: (ids) => storage.getRecords(ids),
    ...vector,
  };
}

/** Embedders that contribute nothing, each in its own way. */
const DEAD: Record<string, Pick<HybridSources, "embedQuery" | "searchVectors">> = {
  off: { embedQuery: () => Promise.resolve(null), searchVectors: () => Promise.resolve([]) },
  throws: {
    embedQuery: () => Promise.reject(new Error("worker crashed")),
    searchVectors: () => Promise.resolve([]),
  },
  throwsSync: {
    embedQuery: () => {
      throw new Error("not loaded");
    },
    searchVectors: () => Promise.resolve([]),
  },
  hangs: { embedQuery: () => new Promise(() => {}), searchVectors: () => Promise.resolve([]) },
  indexFails: {
    embedQuery: () => Promise.resolve(Float32Array.of(1, 0)),
    searchVectors: () => Promise.reject(new Error("index not loaded")),
  },
  belowFloor: {
    embedQuery: () => Promise.resolve(Float32Array.of(1, 0)),
    // An index that ignores the floor: the searcher must enforce it anyway.
    searchVectors: () => Promise.resolve([{ record_id: "mr_X", similarity: 0.1 }]),
  },
};

const WORDS = [
  "token",
  "tokens",
  "refresh",
  "login",
  "logins",
  "migration",
  "migrations",
  "cache",
  "caching",
  "websocket",
  "parser",
  "date",
  "timezone",
  "the",
  "error",
  "errors",
  "CI",
  "flaky",
  "auth",
  "retry",
  'quo"te',
  "under_score",
  "100%",
  "e2e",
];

const textArb = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 8 }).map((w) =>
  w.join(" ")
);
const recordArb = fc.record({
  title: textArb,
  summary: textArb,
  facts: fc.array(textArb, { maxLength: 2 }),
  day: fc.integer({ min: 1, max: 28 }),
  other: fc.boolean(),
});
const queryArb = fc.oneof(
  textArb,
  fc.string({ maxLength: 30 }),
  fc.array(fc.constantFrom(...WORDS, "OR", "NOT", "*", "(", ")", ":"), { maxLength: 6 }).map((w) =>
    w.join(" ")
  ),
);

Deno.test("with a dead embedder, hybrid equals the FTS path exactly (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(recordArb, { minLength: 0, maxLength: 40 }),
      fc.array(queryArb, { minLength: 1, maxLength: 5 }),
      fc.integer({ min: 1, max: 12 }),
      fc.constantFrom(...Object.keys(DEAD)),
      async (specs, queries, limit, dead) => {
        await withStorage(async (storage) => {
          const records = specs.map((s) =>
            makeRecord({
              namespace: s.other ? OTHER_NS : TEST_NAMESPACE,
              title: s.title,
              summary: s.summary,
              facts: s.facts,
              created_at: `2025-01-${String(s.day).padStart(2, "0")}T00:00:00.000Z`,
            })
          );
          await storage.commitExtraction({
            consumedSeqs: [],
            records: records.map((record) => ({ record })),
          });
          const traces: HybridTrace[] = [];
          const search = createHybridSearcher(sources(storage, DEAD[dead]), {
            embedTimeoutMs: 5,
            onSearch: (t) => traces.push(t),
          });
          for (const q of queries) {
            for (const ns of [TEST_NAMESPACE, OTHER_NS]) {
              const expected = await storage.searchLexical(ns, q, { limit });
              const actual = await search(ns, q, { limit });
              assert.deepEqual(actual, expected, `${dead} ${JSON.stringify(q)}`);
            }
          }
          assert.ok(traces.every((t) => t.mode === "lexical"));
        });
      },
    ),
    { numRuns: 60 },
  );
});

function rec(id: number, title: string, day: number, ns = TEST_NAMESPACE): MemoryRecord {
  return makeRecord({
    record_id: `mr_${String(id).padStart(26, "0")}`,
    namespace: ns,
    title,
    summary: title,
    created_at: `2025-02-${String(day).padStart(2, "0")}T00:00:00.000Z`,
  });
}

Deno.test("vector-only hits come through, the floor applies, other namespaces are dropped", async () => {
  await withStorage(async (storage) => {
    const lexicalHit = rec(1, "refresh token expiry", 1);
    const paraphrase = rec(2, "sessions end after sixty minutes", 2);
    const weak = rec(3, "unrelated note about css", 3);
    const foreign = rec(4, "other project record", 4, OTHER_NS);
    await storage.commitExtraction({
      consumedSeqs: [],
      records: [lexicalHit, paraphrase, weak, foreign].map((record) => ({ record })),
    });
    const asked: { k: number; minSimilarity: number; collapseAbove?: number }[] = [];
    const hits: VectorHit[] = [
      { record_id: paraphrase.record_id, similarity: 0.72 },
      { record_id: foreign.record_id, similarity: 0.7 },
      { record_id: lexicalHit.record_id, similarity: 0.5 },
      { record_id: weak.record_id, similarity: 0.2 },
    ];
    const traces: HybridTrace[] = [];
    const search = createHybridSearcher(
      sources(storage, {
        embedQuery: () => Promise.resolve(Float32Array.of(1, 0, 0)),
        searchVectors: (_ns, _q, o) => {
          asked.push(o);
          return Promise.resolve(hits);
        },
      }),
      { minSimilarity: 0.35, onSearch: (t) => traces.push(t) },
    );
    const out = await search(TEST_NAMESPACE, "why does the refresh token expire", { limit: 5 });
    const ids = out.map((h) => h.record.record_id);
    assert.deepEqual(asked, [
      { k: 20, minSimilarity: 0.35, collapseAbove: DEFAULT_COLLAPSE_ABOVE },
    ]);
    assert.ok(ids.includes(paraphrase.record_id), "paraphrase found by the vector side");
    assert.ok(!ids.includes(weak.record_id), "below the floor");
    assert.ok(!ids.includes(foreign.record_id), "other namespace");
    // In both lists beats in one list.
    assert.equal(ids[0], lexicalHit.record_id);
    assert.equal(traces[0].mode, "hybrid");
    assert.equal(traces[0].vector, 2);
  });
});

Deno.test("ties: fused score, then newer first, then record id", async () => {
  await withStorage(async (storage) => {
    // a and b swap places between the lists (equal RRF sums); c and d tie the same way but
    // share a day, so the id decides.
    const a = rec(10, "alpha", 5);
    const b = rec(11, "beta", 9);
    const c = rec(13, "gamma", 7);
    const d = rec(12, "delta", 7);
    await storage.commitExtraction({
      consumedSeqs: [],
      records: [a, b, c, d].map((record) => ({ record })),
    });
    const searchLexical = () =>
      Promise.resolve([a, b, c, d].map((record, i) => ({ record, score: 10 - i })));
    const search = createHybridSearcher({
      searchLexical,
      getRecords: (ids) => storage.getRecords(ids),
      embedQuery: () => Promise.resolve(Float32Array.of(1)),
      searchVectors: () =>
        Promise.resolve([b, a, d, c].map((r) => ({ record_id: r.record_id, similarity: 0.9 }))),
    }, { recencyWeight: 0, lexicalCut: 0 });
    const out = await search(TEST_NAMESPACE, "q", { limit: 4 });
    assert.deepEqual(out.map((h) => h.record.title), ["beta", "alpha", "delta", "gamma"]);
    const again = await search(TEST_NAMESPACE, "q", { limit: 4 });
    assert.deepEqual(again, out);
  });
});

Deno.test("recency lifts the newer of two equally relevant records", async () => {
  await withStorage(async (storage) => {
    const old = rec(20, "old decision", 1);
    const fresh = rec(21, "new decision", 20);
    await storage.commitExtraction({
      consumedSeqs: [],
      records: [old, fresh].map((record) => ({ record })),
    });
    const make = (weight: number) =>
      createHybridSearcher({
        searchLexical: () =>
          Promise.resolve([{ record: old, score: 2 }, { record: fresh, score: 1 }]),
        getRecords: (ids) => storage.getRecords(ids),
        embedQuery: () => Promise.resolve(Float32Array.of(1)),
        searchVectors: () =>
          Promise.resolve([
            { record_id: fresh.record_id, similarity: 0.8 },
            { record_id: old.record_id, similarity: 0.79 },
          ]),
      }, { recencyWeight: weight, lexicalCut: 0 });
    const withRecency = await make(0.25)(TEST_NAMESPACE, "decision", { limit: 2 });
    assert.deepEqual(withRecency.map((h) => h.record.title), ["new decision", "old decision"]);
  });
});

Deno.test("an embedding that does not answer degrades to lexical results without waiting", async () => {
  await withStorage(async (storage) => {
    await storage.putRecord(rec(30, "websocket reconnect backoff", 3));
    const traces: HybridTrace[] = [];
    // The model answers only when released, after the retrieval is over: a searcher that waited
    // for it would run into the assembler's (generous) budget, which empties the result.
    let release!: (vector: Float32Array) => void;
    const embedding = new Promise<Float32Array>((resolve) => (release = resolve));
    const search = createHybridSearcher(
      sources(storage, {
        embedQuery: () => embedding,
        searchVectors: () => Promise.resolve([]),
      }),
      { embedTimeoutMs: 50, onSearch: (t) => traces.push(t) },
    );
    const assemble = createAssembler({
      storage,
      search,
      budgetMs: 30_000,
      limit: 5,
      tokenBudget: 2000,
    });
    const result = await assemble({
      event_id: "01J00000000000000000000000",
      session_id: "s",
      actor_id: "tester",
      namespace: TEST_NAMESPACE,
      schema_version: 1,
      kind: "prompt",
      body: { type: "text", content: "websocket backoff" },
      valid_time: new Date().toISOString(),
      source: { surface: "kiro-cli", version: "0.1.0", client_id: "h" },
    });
    assert.equal(result.records.length, 1, "the lexical hit is served");
    assert.match(result.context, /websocket reconnect backoff/);
    assert.equal(traces.length, 1);
    assert.equal(traces[0].reason, "embed_timeout");
    release(Float32Array.of(1));
  });
});

Deno.test("the lexical cut drops weak BM25 matches from the fusion only", async () => {
  await withStorage(async (storage) => {
    const strong = rec(40, "strong match", 2);
    const weak = rec(41, "weak match", 3);
    const semantic = rec(42, "semantic match", 4);
    await storage.commitExtraction({
      consumedSeqs: [],
      records: [strong, weak, semantic].map((record) => ({ record })),
    });
    const lexical = [{ record: strong, score: 10 }, { record: weak, score: 2 }];
    const make = (vector: boolean) =>
      createHybridSearcher({
        searchLexical: () => Promise.resolve(lexical),
        getRecords: (ids) => storage.getRecords(ids),
        embedQuery: () => Promise.resolve(Float32Array.of(1)),
        searchVectors: () =>
          Promise.resolve(vector ? [{ record_id: semantic.record_id, similarity: 0.9 }] : []),
      }, { lexicalCut: 0.7, recencyWeight: 0 });
    const fused = await make(true)(TEST_NAMESPACE, "q", { limit: 5 });
    // Equal RRF scores (rank 1 in one list each): the newer record first.
    assert.deepEqual(fused.map((h) => h.record.title), ["semantic match", "strong match"]);
    // Without vector hits the lexical result is returned whole, cut or not.
    assert.deepEqual(await make(false)(TEST_NAMESPACE, "q", { limit: 5 }), lexical);
  });
});

Deno.test("the floor follows the embedding model unless given", () => {
  assert.equal(minSimilarityFor("use-lite@0.2.0"), 0.4);
  assert.equal(minSimilarityFor("use-lite@0.2.0+in2"), 0.4, "the input version keeps the model");
  assert.equal(minSimilarityFor("onnx:all-MiniLM-L6-v2@abc"), DEFAULT_MIN_SIMILARITY);
  assert.equal(minSimilarityFor(null), DEFAULT_MIN_SIMILARITY);
});

Deno.test("near-duplicate collapsing is asked of the vector side, and can be turned off", async () => {
  const asked: (number | undefined)[] = [];
  const make = (collapseAbove?: number) =>
    createHybridSearcher({
      searchLexical: () => Promise.resolve([]),
      getRecords: () => Promise.resolve([]),
      embedQuery: () => Promise.resolve(Float32Array.of(1)),
      searchVectors: (_ns, _q, o) => {
        asked.push(o.collapseAbove);
        return Promise.resolve([]);
      },
    }, collapseAbove === undefined ? {} : { collapseAbove });
  await make()(TEST_NAMESPACE, "q", { limit: 5 });
  await make(1.01)(TEST_NAMESPACE, "q", { limit: 5 });
  assert.deepEqual(asked, [DEFAULT_COLLAPSE_ABOVE, 1.01]);
});
