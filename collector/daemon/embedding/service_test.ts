import assert from "node:assert/strict";
import { openSqliteStorage, type Storage } from "@kiro-learn/core/storage";
import { failOnHang, makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { silentLogger } from "../runtime/mod.ts";
import { type Embedder, embeddingModelId } from "./embedder.ts";
import { addModel } from "./models.ts";
import { createEmbeddingService, type EmbeddingServiceOptions, lengthOrder } from "./service.ts";
import { writeTinyModel } from "../../tooling/testing/mod.ts";
import { unitOrZero } from "@kiro-learn/core/search";

interface FakeEmbedder extends Embedder {
  calls: string[][];
  delayMs: number;
  fail: boolean;
  hang: boolean;
  /** While set, calls wait for it before answering (a model that is busy until released). */
  gate: Promise<void> | null;
  /** Calls that have returned or thrown. */
  settled: number;
  closed: boolean;
}

function fakeEmbedder(model = "fake@1"): FakeEmbedder {
  const e: FakeEmbedder = {
    model_id: model,
    dim: 3,
    calls: [],
    delayMs: 0,
    fail: false,
    hang: false,
    gate: null,
    settled: 0,
    closed: false,
    async embed(texts) {
      e.calls.push(texts);
      try {
        if (e.hang) await new Promise(() => {});
        if (e.gate) await e.gate;
        if (e.delayMs) await new Promise((r) => setTimeout(r, e.delayMs));
        if (e.fail) throw new Error("model broke");
        return texts.map((t) =>
          unitOrZero(Float32Array.from([t.length, 1, t.includes("x") ? 5 : 0]))
        );
      } finally {
        e.settled++;
      }
    },
    close() {
      e.closed = true;
      return Promise.resolve();
    },
  };
  return e;
}

function service(
  storage: Storage,
  overrides: Partial<EmbeddingServiceOptions> = {},
) {
  return createEmbeddingService({
    backend: "use-lite",
    storage,
    logger: silentLogger(),
    timeoutMs: 500,
    dataDir: "/nonexistent",
    backfill: { intervalMs: 60_000 },
    ...overrides,
  });
}

// A hang guard, generous for a loaded machine: the poll ends as soon as the check holds.
async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition not met in time");
}

Deno.test("off: lexical-only, visibly; records pass through without embeddings", async () => {
  const storage = openSqliteStorage(":memory:");
  const s = service(storage, { backend: "off" });
  try {
    assert.equal(await s.whenLoaded(), false);
    const status = s.status();
    assert.equal(status.state, "off");
    assert.equal(status.backend, "off");
    assert.match(status.error ?? "", /lexical-only/);
    assert.equal(status.backfill, null);
    assert.equal(await s.embedQuery("anything"), null);
    const r = makeRecord();
    assert.deepEqual(await s.embedRecords([r]), [{ record: r }]);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("loading, then ready: the backfill embeds what is stored and the index follows", async () => {
  const storage = openSqliteStorage(":memory:");
  const records = [makeRecord({ title: "one" }), makeRecord({ title: "two" })];
  for (const r of records) await storage.putRecord(r);
  const gate = Promise.withResolvers<void>();
  const embedder = fakeEmbedder();
  const s = service(storage, {
    factory: async () => {
      await gate.promise;
      return embedder;
    },
  });
  try {
    assert.equal(s.status().state, "loading");
    assert.equal(await s.embedQuery("q"), null, "no vector while loading");
    gate.resolve();
    assert.equal(await s.whenLoaded(), true);
    const status = s.status();
    assert.equal(status.state, "ready");
    assert.equal(status.model_id, "fake@1");
    assert.equal(status.dim, 3);
    assert.equal(s.index.model, "fake@1");
    await waitFor(() => s.status().backfill?.done === 2);
    const hits = await s.index.search(TEST_NAMESPACE, (await s.embedQuery("one"))!, { k: 5 });
    assert.deepEqual(hits.map((h) => h.record_id).sort(), records.map((r) => r.record_id).sort());
  } finally {
    await s.close();
    storage.close();
  }
  assert.equal(embedder.closed, true);
});

Deno.test("a failed load is visible, then retried after the delay", async () => {
  const storage = openSqliteStorage(":memory:");
  let attempts = 0;
  const s = service(storage, {
    reloadDelayMs: 50,
    factory: () => {
      attempts++;
      return attempts === 1
        ? Promise.reject(new Error("weights missing"))
        : Promise.resolve(fakeEmbedder());
    },
  });
  try {
    assert.equal(await s.whenLoaded(), false);
    const failed = s.status();
    assert.equal(failed.state, "failed");
    assert.equal(failed.error, "weights missing");
    assert.ok(failed.retry_at);
    assert.equal(await s.embedQuery("q"), null);
    await waitFor(() => s.status().state === "ready");
    assert.equal(s.status().error, undefined);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("a model that dies after loading degrades to failed and is reloaded", async () => {
  const storage = openSqliteStorage(":memory:");
  let kill: ((e: Error) => void) | undefined;
  let loads = 0;
  const s = service(storage, {
    reloadDelayMs: 30,
    factory: (hooks) => {
      loads++;
      kill = hooks.onDead;
      return Promise.resolve(fakeEmbedder(`fake@${loads}`));
    },
  });
  try {
    await s.whenLoaded();
    kill!(new Error("worker crashed"));
    assert.equal(s.status().state, "failed");
    assert.equal(s.status().error, "worker crashed");
    await waitFor(() => s.status().state === "ready");
    assert.equal(s.status().model_id, "fake@2");
    assert.equal(s.index.model, "fake@2", "a new model id invalidates the index");
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("queries never throw: a slow model gives null at the query's bound", async () => {
  const storage = openSqliteStorage(":memory:");
  const embedder = fakeEmbedder();
  const s = service(storage, { factory: () => Promise.resolve(embedder) });
  try {
    await s.whenLoaded();
    // The model does not answer until released, so the query can only return by giving up.
    let release!: () => void;
    embedder.gate = new Promise((resolve) => (release = resolve));
    const slow = await failOnHang(s.embedQuery("slow", { timeoutMs: 40 }), "a bounded query");
    assert.equal(slow, null);
    assert.equal(embedder.settled, 0, "it gave up while the model was still busy");
    embedder.gate = null;
    release();
    await waitFor(() => embedder.settled === 1); // the slow call finishes
    embedder.fail = true;
    assert.equal(await s.embedQuery("broken"), null);
    assert.equal(await s.embedTexts(["a", "b"]), null);
    embedder.fail = false;
    assert.equal((await s.embedQuery("fine"))?.length, 3);
    assert.equal(s.status().state, "ready", "short query bounds do not count as model failures");
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("a query waits for at most the chunk in flight, not the whole background batch", async () => {
  const storage = openSqliteStorage(":memory:");
  const embedder = fakeEmbedder();
  const s = service(storage, { factory: () => Promise.resolve(embedder) });
  try {
    await s.whenLoaded();
    embedder.calls.length = 0;
    embedder.delayMs = 30;
    const background = s.embedTexts(Array.from({ length: 12 }, (_, i) => `text ${i}`));
    await new Promise((r) => setTimeout(r, 5));
    const query = await s.embedQuery("the query");
    assert.ok(query);
    assert.equal((await background)?.length, 12);
    assert.deepEqual(embedder.calls.map((c) => c.length), [4, 1, 4, 4]);
    assert.deepEqual(embedder.calls[1], ["the query"]);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("background texts go to the model in chunks of similar length, answers in input order", async () => {
  const storage = openSqliteStorage(":memory:");
  const embedder = fakeEmbedder();
  const s = service(storage, { factory: () => Promise.resolve(embedder) });
  try {
    await s.whenLoaded();
    embedder.calls.length = 0;
    const texts = [
      "a".repeat(9),
      "b",
      "c".repeat(30),
      "d".repeat(2),
      "e".repeat(8),
      "f".repeat(3),
      ..."ghijklmnop".split("").map((c) => c.repeat(40)),
    ];
    const vectors = await s.embedTexts(texts);
    // The fake's vector encodes the text's length: each answer belongs to its own text.
    assert.deepEqual(vectors, texts.map((t) => unitOrZero(Float32Array.from([t.length, 1, 0]))));
    assert.deepEqual(embedder.calls, [
      ["b", "dd", "fff", "eeeeeeee"],
      ["a".repeat(9), "c".repeat(30), "g".repeat(40), "h".repeat(40)],
      "ijkl".split("").map((c) => c.repeat(40)),
      "mnop".split("").map((c) => c.repeat(40)),
    ]);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("background chunks group texts by the embedder's token counts when it gives them", async () => {
  const storage = openSqliteStorage(":memory:");
  // Characters say nothing here: 'x' costs ten tokens, every other letter one.
  const tokens = (t: string) => [...t].reduce((n, c) => n + (c === "x" ? 10 : 1), 0);
  const embedder = {
    ...fakeEmbedder(),
    tokenCounts: (texts: string[]) => Promise.resolve(texts.map(tokens)),
  };
  const s = service(storage, { factory: () => Promise.resolve(embedder) });
  try {
    await s.whenLoaded();
    embedder.calls.length = 0;
    const texts = ["x", "aaaaaaa", "xx", "bbbbbb", "xxx", "ccccc", "xxxx", "dddd"];
    const vectors = await s.embedTexts(texts);
    const expected = (t: string) =>
      unitOrZero(Float32Array.from([t.length, 1, t.includes("x") ? 5 : 0]));
    assert.deepEqual(vectors, texts.map(expected));
    assert.deepEqual(embedder.calls.slice(0, 2), [
      ["dddd", "ccccc", "bbbbbb", "aaaaaaa"],
      ["x", "xx", "xxx", "xxxx"],
    ]);
    // Counts that fail leave the grouping to characters; every text is still embedded.
    embedder.tokenCounts = () => Promise.reject(new Error("counting broke"));
    embedder.calls.length = 0;
    assert.equal((await s.embedTexts(texts))?.length, texts.length);
    assert.deepEqual(embedder.calls, [
      ["x", "xx", "xxx", "xxxx"],
      ["dddd", "ccccc", "bbbbbb", "aaaaaaa"],
    ]);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("an embedder with two lanes gets background chunks twice as large; queries stay one text", async () => {
  const storage = openSqliteStorage(":memory:");
  const embedder = { ...fakeEmbedder(), lanes: 2 };
  const calls = embedder.calls;
  const s = service(storage, { factory: () => Promise.resolve(embedder) });
  try {
    await s.whenLoaded();
    calls.length = 0;
    const texts = Array.from({ length: 19 }, (_, i) => `t${"e".repeat(i)}`);
    const vectors = await s.embedTexts(texts);
    assert.deepEqual(vectors, texts.map((t) => unitOrZero(Float32Array.from([t.length, 1, 0]))));
    assert.deepEqual(calls.map((c) => c.length), [8, 8, 3]);
    assert.ok(await s.embedQuery("the query"));
    assert.deepEqual(calls.at(-1), ["the query"]);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("the service's vector index holds sign codes (an eighth of int8's memory)", async () => {
  const storage = openSqliteStorage(":memory:");
  const s = service(storage, { backend: "off" });
  try {
    assert.equal(s.index.precision, "bits");
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("a namespace's vectors leave memory after the idle time and come back on search", async () => {
  const storage = openSqliteStorage(":memory:");
  const records = [makeRecord({ title: "one" }), makeRecord({ title: "two" })];
  for (const r of records) await storage.putRecord(r);
  const s = service(storage, { factory: () => Promise.resolve(fakeEmbedder()), vectorIdleMs: 50 });
  try {
    assert.equal(await s.whenLoaded(), true);
    await waitFor(() => s.status().backfill?.done === 2);
    const query = (await s.embedQuery("one"))!;
    assert.equal((await s.index.search(TEST_NAMESPACE, query, { k: 5 })).length, 2);
    assert.equal(s.index.isLoaded(TEST_NAMESPACE), true);
    await waitFor(() => !s.index.isLoaded(TEST_NAMESPACE));
    assert.equal(s.index.stats().vectors, 0);
    assert.equal((await s.index.search(TEST_NAMESPACE, query, { k: 5 })).length, 2);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("lengthOrder: shortest first, equal lengths in input order", () => {
  assert.deepEqual(lengthOrder([3, 1, 2, 1, 0]), [4, 1, 3, 2, 0]);
  assert.deepEqual(lengthOrder([]), []);
});

Deno.test("three full-length timeouts in a row restart the model", async () => {
  const storage = openSqliteStorage(":memory:");
  const first = fakeEmbedder("fake@1");
  const s = service(storage, {
    timeoutMs: 30,
    reloadDelayMs: 20,
    factory: () => Promise.resolve(first.closed ? fakeEmbedder("fake@2") : first),
  });
  try {
    await s.whenLoaded();
    first.hang = true;
    for (let i = 0; i < 3; i++) assert.equal(await s.embedQuery(`q${i}`), null);
    assert.equal(s.status().state, "failed");
    assert.match(s.status().error ?? "", /stopped answering/);
    assert.equal(first.closed, true);
    await waitFor(() => s.status().state === "ready");
    assert.equal(s.status().model_id, "fake@2");
    assert.equal((await s.embedQuery("after the restart"))?.length, 3);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("extraction hook: embeddings before commit, then into the index; failure drops nothing", async () => {
  const storage = openSqliteStorage(":memory:");
  const embedder = fakeEmbedder();
  const s = service(storage, { factory: () => Promise.resolve(embedder) });
  try {
    await s.whenLoaded();
    await s.index.load(TEST_NAMESPACE);
    const records = [makeRecord({ title: "alpha" }), makeRecord({ title: "beta x" })];
    const withVectors = await s.embedRecords(records);
    assert.equal(withVectors.length, 2);
    for (const r of withVectors) {
      assert.equal(r.embedding?.model, "fake@1");
      assert.equal(r.embedding?.vector.length, 3);
    }
    await storage.commitExtraction({ consumedSeqs: [], records: withVectors });
    s.recordsCommitted(records);
    assert.equal(s.index.size(TEST_NAMESPACE), 2, "straight into the loaded index");

    embedder.fail = true;
    const more = [makeRecord({ title: "gamma" })];
    const plain = await s.embedRecords(more);
    assert.deepEqual(plain, [{ record: more[0] }], "committed without an embedding, not dropped");
    await storage.commitExtraction({ consumedSeqs: [], records: plain });
    embedder.fail = false;
    s.recordsCommitted(more);
    await waitFor(() => s.index.size(TEST_NAMESPACE) === 3);

    s.recordsDeleted([records[0].record_id]);
    assert.equal(s.index.size(TEST_NAMESPACE), 2);
    assert.equal(s.index.has(records[0].record_id), false);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("only the backfill asks the embedder for extra capacity, not extraction's few records", async () => {
  const storage = openSqliteStorage(":memory:");
  const embedder = fakeEmbedder();
  let expected = 0;
  const s = service(storage, {
    factory: () => Promise.resolve({ ...embedder, expectBatches: () => void expected++ }),
  });
  try {
    await s.whenLoaded();
    await s.embedRecords([makeRecord({ title: "alpha" }), makeRecord({ title: "beta" })]);
    assert.equal(expected, 0, "an extraction's records do not start a spare");
    const saved = makeRecord({ title: "saved by MCP" });
    await storage.putRecord(saved);
    s.recordSaved(saved);
    await waitFor(() => embedder.calls.flat().some((t) => t.includes("saved by MCP")));
    assert.ok(expected >= 1, "the backfill's batches ask for it");
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("saved and edited records are (re-)embedded by the backfill", async () => {
  const storage = openSqliteStorage(":memory:");
  const embedder = fakeEmbedder();
  const s = service(storage, { factory: () => Promise.resolve(embedder) });
  try {
    await s.whenLoaded();
    await s.index.load(TEST_NAMESPACE);
    const record = makeRecord({ title: "saved by MCP" });
    await storage.putRecord(record);
    s.recordSaved(record);
    await waitFor(() => s.index.has(record.record_id));
    const stored = async () =>
      (await storage.listEmbeddings(TEST_NAMESPACE, { model: s.index.model! }))
        .find((r) => r.record_id === record.record_id)?.vector;
    const before = await stored();
    assert.ok(before);
    const edited = await storage.updateRecord(record.record_id, { title: "x edited title" });
    s.recordSaved(edited!);
    assert.equal(s.index.has(record.record_id), false, "the stale vector leaves at once");
    await waitFor(() => s.index.has(record.record_id));
    assert.notDeepEqual(await stored(), before);
  } finally {
    await s.close();
    storage.close();
  }
});

Deno.test("onnx backend: an installed model loads in the child; none installed is a visible failure", async () => {
  const dataDir = await Deno.makeTempDir();
  const storage = openSqliteStorage(":memory:");
  const missing = service(storage, { backend: "onnx", dataDir, reloadDelayMs: 60_000 });
  try {
    assert.equal(await missing.whenLoaded(), false);
    assert.equal(missing.status().state, "failed");
    assert.match(missing.status().error ?? "", /no ONNX model is installed.*models add/);
  } finally {
    await missing.close();
  }
  const src = await Deno.makeTempDir();
  await writeTinyModel(src, { dim: 8 });
  const added = await addModel(src, { dataDir, name: "tiny" });
  const s = service(storage, { backend: "onnx", dataDir });
  try {
    assert.equal(await s.whenLoaded(), true);
    assert.equal(s.status().model_id, embeddingModelId(added.model_id));
    assert.equal((await s.embedQuery("the cache test fails"))?.length, 8);
  } finally {
    await s.close();
    storage.close();
    await Deno.remove(src, { recursive: true });
    await Deno.remove(dataDir, { recursive: true });
  }
});
