import assert from "node:assert/strict";
import fc from "fast-check";
import { dotAt, unitOrZero } from "@kiro-learn/core/search";
import { join } from "node:path";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import { createRng, makeRecord } from "@kiro-learn/core/testing";
import {
  COLLAPSE_POOL,
  LOAD_PAGE,
  SHORTLIST_MIN,
  SignCodes,
  type VectorHit,
  VectorIndex,
  type VectorSource,
} from "./vector_index.ts";

/** An in-memory `listEmbeddings`, keyed by namespace then record id. */
class FakeSource implements VectorSource {
  rows = new Map<string, Map<string, { vector: Float32Array; model: string }>>();
  loads = 0;
  gate: Promise<void> | null = null;

  put(ns: string, id: string, vector: Float32Array, model = "m1"): void {
    for (const other of this.rows.values()) other.delete(id);
    if (!this.rows.has(ns)) this.rows.set(ns, new Map());
    this.rows.get(ns)!.set(id, { vector, model });
  }

  remove(id: string): void {
    for (const m of this.rows.values()) m.delete(id);
  }

  async listEmbeddings(ns: string, options: { model: string }) {
    this.loads++;
    const snapshot = [...(this.rows.get(ns) ?? new Map()).entries()]
      .filter(([, r]) => r.model === options.model)
      .map(([record_id, r]) => ({ record_id, vector: r.vector }));
    if (this.gate) await this.gate;
    return snapshot;
  }
}

const v = (...xs: number[]) => Float32Array.from(xs);

Deno.test("loads a namespace lazily, once, and searches by cosine, best first", async () => {
  const source = new FakeSource();
  source.put("ns1", "a", v(1, 0, 0));
  source.put("ns1", "b", v(0.8, 0.6, 0));
  source.put("ns1", "c", v(0, 0, 1));
  const index = new VectorIndex(source, { model: "m1", dim: 3 });
  assert.equal(index.isLoaded("ns1"), false);
  const [h1, h2] = await Promise.all([
    index.search("ns1", v(2, 0, 0), { k: 2 }),
    index.search("ns1", v(2, 0, 0), { k: 2 }),
  ]);
  assert.equal(source.loads, 1, "concurrent searches share one load");
  assert.deepEqual(h1, h2);
  assert.deepEqual(h1.map((h) => h.record_id), ["a", "b"]);
  assert.ok(Math.abs(h1[0].similarity - 1) < 1e-6);
  assert.ok(Math.abs(h1[1].similarity - 0.8) < 1e-6);
});

Deno.test("namespaces unused for the idle time leave memory and reload with the same answers", async () => {
  const source = new FakeSource();
  source.put("ns1", "a", v(1, 0));
  source.put("ns1", "b", v(0.6, 0.8));
  source.put("ns2", "c", v(0, 1));
  const index = new VectorIndex(source, { model: "m1", dim: 2, precision: "int8" });
  const before = await index.search("ns1", v(1, 0), { k: 2 });
  await index.search("ns2", v(0, 1), { k: 1 });
  const now = Date.now();
  assert.deepEqual(index.unloadIdle(60_000, { now }), [], "both were just used");
  // A minute later both have been idle for the whole idle time.
  assert.deepEqual(index.unloadIdle(60_000, { now: now + 60_000 }).sort(), ["ns1", "ns2"]);
  assert.equal(index.isLoaded("ns1"), false);
  assert.equal(index.vector("a"), null, "its records are forgotten with it");
  assert.equal(index.stats().vectors, 0);
  assert.equal(index.stats().bytes, 0);
  // A write while unloaded waits for storage, as for any namespace not in memory.
  source.put("ns1", "d", v(0.8, 0.6));
  index.upsert("ns1", "d", v(0.8, 0.6));
  const loadsBefore = source.loads;
  const after = await index.search("ns1", v(1, 0), { k: 2 });
  assert.equal(source.loads, loadsBefore + 1, "the next search reloads it");
  assert.deepEqual(after.map((h) => h.record_id), ["a", "d"]);
  assert.equal(before[0].record_id, "a");
  // A namespace searched within the idle time stays.
  const recent = Date.now();
  await index.search("ns1", v(1, 0), { k: 1 });
  assert.deepEqual(index.unloadIdle(60_000, { now: recent + 1_000 }), []);
  assert.equal(index.isLoaded("ns1"), true);
});

Deno.test("namespaces are isolated exactly (no prefix matching)", async () => {
  const source = new FakeSource();
  source.put("/actor/x/project/1/", "a", v(1, 0));
  source.put("/actor/x/project/1/sub/", "b", v(1, 0));
  const index = new VectorIndex(source, { model: "m1", dim: 2 });
  const hits = await index.search("/actor/x/project/1/", v(1, 0), { k: 10 });
  assert.deepEqual(hits.map((h) => h.record_id), ["a"]);
  index.upsert("/actor/x/project/1/", "c", v(1, 0));
  assert.deepEqual(
    (await index.search("/actor/x/project/1/sub/", v(1, 0), { k: 10 })).map((h) => h.record_id),
    ["b"],
  );
});

Deno.test("minSimilarity drops weak hits; ties rank by record_id; zero query finds nothing", async () => {
  const source = new FakeSource();
  for (const id of ["d", "b", "a", "c"]) source.put("ns", id, v(1, 1));
  source.put("ns", "far", v(-1, 1));
  const index = new VectorIndex(source, { model: "m1", dim: 2 });
  const hits = await index.search("ns", v(1, 1), { k: 3, minSimilarity: 0.5 });
  assert.deepEqual(hits.map((h) => h.record_id), ["a", "b", "c"]);
  assert.deepEqual(await index.search("ns", v(0, 0), { k: 3 }), []);
  assert.deepEqual(await index.search("ns", v(1, 1), { k: 0 }), []);
  const all = await index.search("ns", v(1, 1), { k: 10, minSimilarity: -1 });
  assert.equal(all.at(-1)?.record_id, "far");
});

Deno.test("upsert, replace and swap-remove update in place without reloading", async () => {
  const source = new FakeSource();
  const index = new VectorIndex(source, { model: "m1", dim: 2 });
  await index.load("ns");
  for (let i = 0; i < 200; i++) index.upsert("ns", `r${String(i).padStart(3, "0")}`, v(1, i));
  assert.equal(index.size("ns"), 200);
  index.upsert("ns", "r000", v(0, 1));
  assert.equal(index.size("ns"), 200);
  assert.deepEqual(index.vector("r000"), unitOrZero(v(0, 1)));
  index.delete(["r000", "r100", "missing"]);
  assert.equal(index.size("ns"), 198);
  assert.equal(index.vector("r100"), null);
  assert.deepEqual(index.vector("r199"), unitOrZero(v(1, 199)), "the moved vector is intact");
  assert.equal(source.loads, 1);
});

Deno.test("writes to a namespace that is not loaded wait for storage; moves leave the old one", async () => {
  const source = new FakeSource();
  const index = new VectorIndex(source, { model: "m1", dim: 2 });
  index.upsert("ns", "a", v(1, 0));
  assert.equal(index.isLoaded("ns"), false);
  source.put("ns", "a", v(1, 0));
  assert.deepEqual(index.ids("ns"), []);
  await index.load("ns");
  assert.deepEqual(index.ids("ns"), ["a"]);
  await index.load("other");
  index.upsert("other", "a", v(0, 1));
  assert.deepEqual(index.ids("ns"), []);
  assert.deepEqual(index.ids("other"), ["a"]);
});

Deno.test("writes during a load are replayed on the snapshot (no lost insert, no resurrection)", async () => {
  const source = new FakeSource();
  source.put("ns", "old", v(1, 0));
  source.put("ns", "gone", v(1, 0));
  const gate = Promise.withResolvers<void>();
  source.gate = gate.promise;
  const index = new VectorIndex(source, { model: "m1", dim: 2 });
  const loading = index.load("ns");
  await Promise.resolve();
  index.upsert("ns", "new", v(0, 1));
  index.delete(["gone"]);
  gate.resolve();
  await loading;
  assert.deepEqual(index.ids("ns"), ["new", "old"]);
});

Deno.test("a model change drops everything and reloads that model's vectors lazily", async () => {
  const source = new FakeSource();
  source.put("ns", "a", v(1, 0), "m1");
  source.put("ns", "b", v(1, 0, 0), "m2");
  const index = new VectorIndex(source, { model: "m1", dim: 2 });
  assert.deepEqual((await index.search("ns", v(1, 0), { k: 5 })).map((h) => h.record_id), ["a"]);
  index.setModel("m2", 3);
  assert.equal(index.isLoaded("ns"), false);
  assert.deepEqual((await index.search("ns", v(1, 0, 0), { k: 5 })).map((h) => h.record_id), [
    "b",
  ]);
  assert.throws(() => index.upsert("ns", "c", v(1, 0)), RangeError);
});

Deno.test("a load that finishes after a model change is discarded", async () => {
  const source = new FakeSource();
  source.put("ns", "a", v(1, 0), "m1");
  const gate = Promise.withResolvers<void>();
  source.gate = gate.promise;
  const index = new VectorIndex(source, { model: "m1", dim: 2 });
  const loading = index.load("ns");
  index.setModel("m2", 2);
  gate.resolve();
  await loading;
  assert.equal(index.isLoaded("ns"), false);
});

Deno.test("with no model, searches are empty and nothing is loaded", async () => {
  const source = new FakeSource();
  source.put("ns", "a", v(1, 0));
  const index = new VectorIndex(source, { model: null, dim: 0 });
  assert.deepEqual(await index.search("ns", new Float32Array(0), { k: 5 }), []);
  assert.equal(source.loads, 0);
});

type Op =
  | { op: "upsert"; ns: number; id: number; vector: number[] }
  | { op: "delete"; id: number };

const DIM = 4;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("upsert" as const),
      ns: fc.integer({ min: 0, max: 2 }),
      id: fc.integer({ min: 0, max: 40 }),
      // Few distinct values, so equal similarities (ties) are common.
      vector: fc.array(fc.integer({ min: -2, max: 2 }), { minLength: DIM, maxLength: DIM }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("delete" as const),
      id: fc.integer({ min: 0, max: 40 }),
    }),
  },
);

Deno.test("property: after any upserts and deletes, the incremental index equals a rebuilt one", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(opArb, { maxLength: 150 }),
      fc.array(fc.array(fc.integer({ min: -2, max: 2 }), { minLength: DIM, maxLength: DIM }), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.integer({ min: 1, max: 12 }),
      fc.subarray([0, 1, 2]),
      async (ops, queries, k, preloaded) => {
        // The source is the truth (storage): every write lands there first, as in the service.
        const source = new FakeSource();
        const incremental = new VectorIndex(source, { model: "m1", dim: DIM });
        for (const ns of preloaded) await incremental.load(`ns${ns}`);
        for (const o of ops) {
          const id = `mr_${String(o.id).padStart(3, "0")}`;
          if (o.op === "upsert") {
            source.put(`ns${o.ns}`, id, Float32Array.from(o.vector));
            incremental.upsert(`ns${o.ns}`, id, Float32Array.from(o.vector));
          } else {
            source.remove(id);
            incremental.delete([id]);
          }
        }
        const rebuilt = new VectorIndex(source, { model: "m1", dim: DIM });
        for (const ns of [0, 1, 2].map((n) => `ns${n}`)) {
          await incremental.load(ns);
          await rebuilt.load(ns);
          assert.deepEqual(incremental.ids(ns), rebuilt.ids(ns));
          for (const q of queries) {
            const query = Float32Array.from(q);
            const a: VectorHit[] = await incremental.search(ns, query, { k });
            const b: VectorHit[] = await rebuilt.search(ns, query, { k });
            assert.deepEqual(a, b);
            const collapse = { k, collapseAbove: 0.9 };
            assert.deepEqual(
              await incremental.search(ns, query, collapse),
              await rebuilt.search(ns, query, collapse),
            );
          }
        }
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("property: search equals a full sort by (similarity desc, record_id asc)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(
        fc.record({
          id: fc.integer({ min: 0, max: 500 }),
          vector: fc.array(fc.integer({ min: -3, max: 3 }), { minLength: DIM, maxLength: DIM }),
        }),
        { selector: (r) => r.id, maxLength: 80 },
      ),
      fc.array(fc.integer({ min: -3, max: 3 }), { minLength: DIM, maxLength: DIM }),
      fc.integer({ min: 1, max: 20 }),
      fc.double({ min: -1, max: 1, noNaN: true }),
      async (rows, q, k, floor) => {
        const source = new FakeSource();
        for (const r of rows) source.put("ns", `id${r.id}`, Float32Array.from(r.vector));
        const index = new VectorIndex(source, { model: "m1", dim: DIM });
        const query = Float32Array.from(q);
        const hits = await index.search("ns", query, { k, minSimilarity: floor });
        if (query.every((x) => x === 0)) return assert.deepEqual(hits, []);
        const unitQ = unitOrZero(query);
        const expected = rows
          .map((r) => {
            const u = unitOrZero(Float32Array.from(r.vector));
            const s = dotAt(u, 0, unitQ);
            return { record_id: `id${r.id}`, similarity: Math.max(-1, Math.min(1, s)) };
          })
          .filter((h) => h.similarity >= floor)
          .sort((a, b) => b.similarity - a.similarity || (a.record_id < b.record_id ? -1 : 1))
          .slice(0, k);
        assert.deepEqual(hits, expected);
      },
    ),
  );
});

Deno.test("near-duplicate collapsing: a cluster takes one place, the next distinct hit moves up", async () => {
  const source = new FakeSource();
  source.put("ns", "a1", v(1, 0, 0));
  source.put("ns", "a2", v(0.99, 0.14, 0)); // ≈ a1 (cosine 0.99)
  source.put("ns", "a3", v(0.98, 0, 0.2)); // ≈ a1
  source.put("ns", "b", v(0.7, 0.7, 0)); // distinct (cosine 0.71 to a1)
  source.put("ns", "c", v(0, 0, 1));
  const index = new VectorIndex(source, { model: "m1", dim: 3 });
  const q = v(1, 0.2, 0);
  const plain = await index.search("ns", q, { k: 2 });
  assert.deepEqual(plain.map((h) => h.record_id), ["a2", "a1"]);
  const collapsed = await index.search("ns", q, { k: 2, collapseAbove: 0.9 });
  assert.deepEqual(collapsed.map((h) => h.record_id), ["a2", "b"]);
  assert.deepEqual(collapsed[0], plain[0], "similarities are the plain ones");
  // Above 1 nothing is a near-duplicate: the plain result.
  assert.deepEqual(await index.search("ns", q, { k: 2, collapseAbove: 1.01 }), plain);
  // The floor still holds.
  const floored = await index.search("ns", q, { k: 5, collapseAbove: 0.9, minSimilarity: 0.5 });
  assert.deepEqual(floored.map((h) => h.record_id), ["a2", "b"]);
});

Deno.test("property: collapsing keeps, best first, each pool candidate not near a kept one", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(
        fc.record({
          id: fc.integer({ min: 0, max: 500 }),
          vector: fc.array(fc.integer({ min: -2, max: 2 }), { minLength: DIM, maxLength: DIM }),
        }),
        { selector: (r) => r.id, maxLength: 80 },
      ),
      fc.array(fc.integer({ min: -3, max: 3 }), { minLength: DIM, maxLength: DIM }),
      fc.integer({ min: 1, max: 10 }),
      fc.double({ min: 0.5, max: 1, noNaN: true }),
      async (rows, q, k, threshold) => {
        const source = new FakeSource();
        for (const r of rows) source.put("ns", `id${r.id}`, Float32Array.from(r.vector));
        const index = new VectorIndex(source, { model: "m1", dim: DIM });
        const query = Float32Array.from(q);
        const pool = await index.search("ns", query, { k: k * COLLAPSE_POOL });
        const hits = await index.search("ns", query, { k, collapseAbove: threshold });
        const sim = (a: string, b: string) => {
          const x = index.vector(a)!;
          return dotAt(x, 0, index.vector(b)!);
        };
        const expected: VectorHit[] = [];
        for (const h of pool) {
          if (expected.length === k) break;
          if (expected.some((e) => sim(e.record_id, h.record_id) >= threshold)) continue;
          expected.push(h);
        }
        assert.deepEqual(hits, expected);
        for (let i = 0; i < hits.length; i++) {
          for (let j = 0; j < i; j++) {
            assert.ok(sim(hits[i].record_id, hits[j].record_id) < threshold);
          }
        }
      },
    ),
  );
});

Deno.test("property: int8 search ranks by the decoded vectors' cosine, best first, none missed", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(
        fc.record({
          id: fc.integer({ min: 0, max: 500 }),
          vector: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), {
            minLength: DIM,
            maxLength: DIM,
          }),
        }),
        { selector: (r) => r.id, maxLength: 60 },
      ),
      fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: DIM, maxLength: DIM }),
      fc.integer({ min: 1, max: 10 }),
      async (rows, q, k) => {
        const source = new FakeSource();
        for (const r of rows) source.put("ns", `id${r.id}`, Float32Array.from(r.vector));
        const index = new VectorIndex(source, { model: "m1", dim: DIM, precision: "int8" });
        const query = unitOrZero(Float32Array.from(q));
        const hits = await index.search("ns", query, { k });
        if (query.every((x) => x === 0)) return assert.deepEqual(hits, []);
        const decoded = (id: string) => dotAt(index.vector(id)!, 0, query);
        assert.equal(hits.length, Math.min(k, rows.length));
        for (let i = 0; i < hits.length; i++) {
          assert.ok(Math.abs(hits[i].similarity - decoded(hits[i].record_id)) < 1e-5);
          if (i > 0) assert.ok(hits[i].similarity <= hits[i - 1].similarity);
        }
        const returned = new Set(hits.map((h) => h.record_id));
        const last = hits.at(-1)?.similarity ?? -1;
        for (const r of rows) {
          const id = `id${r.id}`;
          if (!returned.has(id)) assert.ok(decoded(id) <= last + 1e-5, `${id} was missed`);
        }
      },
    ),
  );
});

Deno.test("int8: a quarter of the memory, decoded vectors within half a step of the unit vector", async () => {
  const source = new FakeSource();
  const dim = 512;
  let seed = 11;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
  for (let i = 0; i < 100; i++) {
    source.put("ns", `r${i}`, Float32Array.from({ length: dim }, random));
  }
  const float = new VectorIndex(source, { model: "m1", dim });
  const int8 = new VectorIndex(source, { model: "m1", dim, precision: "int8" });
  await float.load("ns");
  await int8.load("ns");
  assert.equal(int8.precision, "int8");
  assert.equal(float.stats().vectors, int8.stats().vectors);
  assert.ok(int8.stats().bytes * 3.9 < float.stats().bytes, `${int8.stats().bytes} bytes`);
  for (let i = 0; i < 100; i++) {
    const exact = float.vector(`r${i}`)!;
    const approx = int8.vector(`r${i}`)!;
    const step = Math.max(...exact.map(Math.abs)) / 127;
    for (let d = 0; d < dim; d++) assert.ok(Math.abs(exact[d] - approx[d]) <= step / 2 + 1e-7);
  }
  // Collapsing compares stored vectors with each other: a record is a near-duplicate of itself.
  int8.upsert("ns", "twin", float.vector("r0")!);
  const hits = await int8.search("ns", float.vector("r0")!, { k: 2, collapseAbove: 0.99 });
  assert.equal(hits.length, 2);
  assert.ok(!(hits[0].record_id === "r0" && hits[1].record_id === "twin"));
  assert.ok(!(hits[0].record_id === "twin" && hits[1].record_id === "r0"));
});

/** A source that pages (fresh copies, as storage decodes them), and counts what it was asked. */
class PagedSource extends FakeSource {
  pages = 0;
  /** What the first page announces as the total (default: the true count). */
  announce?: (count: number) => number;
  /** Every vector handed out. */
  handedOut: Float32Array[] = [];
  /** `Deno.memoryUsage().external` when the last page was asked for. */
  externalAtLastPage = 0;
  async listEmbeddingPage(
    ns: string,
    options: { model: string; after: number; limit: number },
  ) {
    this.pages++;
    const all = await this.listEmbeddings(ns, options);
    this.loads--; // Only whole listings count as loads.
    const rows = all.slice(options.after, options.after + options.limit)
      .map((r) => ({ record_id: r.record_id, vector: r.vector.slice() }));
    this.handedOut.push(...rows.map((r) => r.vector));
    const next = rows.length < options.limit ? null : options.after + rows.length;
    if (next === null) this.externalAtLastPage = Deno.memoryUsage().external;
    if (options.after !== 0) return { rows, next };
    return { rows, next, total: this.announce ? this.announce(all.length) : all.length };
  }
}

Deno.test("a paged load sized by the first page's total holds every row, whatever the total says", async () => {
  // The total is a moment's count: rows can arrive or go between it and the last page.
  for (const announce of [(n: number) => n, (n: number) => n - 100, (n: number) => 4 * n]) {
    const source = new PagedSource();
    source.announce = announce;
    const n = 3 * LOAD_PAGE + 5;
    for (let i = 0; i < n; i++) source.put("ns", `r${String(i).padStart(6, "0")}`, v(1, i % 5));
    const index = new VectorIndex(source, { model: "m1", dim: 2, precision: "int8" });
    await index.load("ns");
    assert.equal(index.size("ns"), n);
    // Left with an eighth spare at most, however the buffer was first sized.
    assert.equal(index.stats().bytes, Math.ceil(n * 1.125) * (2 + 4));
    const hits = await index.search("ns", v(1, 4), { k: 1 });
    assert.equal(index.vector(hits[0].record_id)!.length, 2);
  }
});

Deno.test("a source that pages is read page by page; writes during the load are kept", async () => {
  const source = new PagedSource();
  const n = 2 * LOAD_PAGE + 3;
  for (let i = 0; i < n; i++) source.put("ns", `r${String(i).padStart(6, "0")}`, v(1, i % 7));
  let release!: () => void;
  source.gate = new Promise((r) => (release = r));
  const index = new VectorIndex(source, { model: "m1", dim: 2, precision: "int8" });
  const loading = index.load("ns");
  index.upsert("ns", "new", v(0, 1));
  index.delete(["r000000"]);
  release();
  await loading;
  assert.equal(source.pages, 3);
  assert.equal(source.loads, 0, "the whole-namespace listing is not used");
  assert.equal(index.size("ns"), n);
  assert.equal(index.vector("r000000"), null);
  assert.ok(index.vector("new"));
  const hits = await index.search("ns", v(0, 1), { k: 1 });
  assert.equal(hits[0].record_id, "new");
});

Deno.test("unloading frees a namespace's vectors at once, without waiting for a collection", async () => {
  const source = new FakeSource();
  const dim = 512;
  for (let i = 0; i < 20_000; i++) {
    const vector = new Float32Array(dim);
    vector[i % dim] = 1;
    source.put("big", `r${i}`, vector);
  }
  const index = new VectorIndex(source, { model: "m1", dim, precision: "int8" });
  await index.load("big");
  const held = index.stats().bytes;
  assert.ok(held >= 20_000 * dim, `int8 codes for 20k × 512: ${held} bytes`);
  const before = Deno.memoryUsage().external;
  assert.deepEqual(index.unloadIdle(0, { now: Date.now() + 1 }), ["big"]);
  const freed = before - Deno.memoryUsage().external;
  assert.ok(freed >= 0.9 * held, `freed ${freed} of ${held} bytes at once`);
});

Deno.test("a paged load frees each page's vectors once it holds them, same answers", async () => {
  // Freed at once, not at a collection after thousands more: they would pile up in malloc's heap.
  const source = new PagedSource();
  const n = 2 * LOAD_PAGE + 7;
  for (let i = 0; i < n; i++) source.put("ns", `r${String(i).padStart(6, "0")}`, v(1, i % 9, 2));
  const paged = new VectorIndex(source, { model: "m1", dim: 3, precision: "int8" });
  await paged.load("ns");
  assert.equal(source.handedOut.length, n);
  assert.ok(source.handedOut.every((vector) => vector.byteLength === 0), "page vectors freed");
  const plain = new FakeSource();
  for (const [id, r] of source.rows.get("ns")!) plain.put("ns", id, r.vector.slice());
  const listed = new VectorIndex(plain, { model: "m1", dim: 3, precision: "int8" });
  for (const query of [v(1, 8, 2), v(0, 1, 0), v(-1, 0, 3)]) {
    const hits = await paged.search("ns", query, { k: 10 });
    assert.equal(hits.length, 10);
    assert.deepEqual(hits, await listed.search("ns", query, { k: 10 }));
  }
});

Deno.test("a resize frees the old buffer at once (a first page that announced too many rows)", async () => {
  const source = new PagedSource();
  const dim = 512;
  const n = 4_000;
  for (let i = 0; i < n; i++) {
    const vector = new Float32Array(dim);
    vector[i % dim] = 1;
    source.put("big", `r${i}`, vector);
  }
  // Sized for 20 × n first, then cut to fit: the first buffer (~46 MB) must go with the cut.
  source.announce = (count) => 20 * count;
  const index = new VectorIndex(source, { model: "m1", dim, precision: "int8" });
  await index.load("big");
  const dropped = source.externalAtLastPage - Deno.memoryUsage().external;
  const first = Math.ceil(20 * n * 1.125) * (dim + 4);
  const held = index.stats().bytes;
  assert.ok(dropped >= 0.8 * (first - held), `external memory fell ${dropped} bytes by the cut`);
});

/** A real SQLite file holding `count` records with seeded random `dim`-d vectors per namespace. */
async function bitsStore(
  options: { count: number; dim: number; seed: number; namespaces?: string[] },
): Promise<{ storage: SqliteStorage; dir: string; vectors: Map<string, Float32Array> }> {
  const dir = await Deno.makeTempDir({ prefix: "vector-index-bits-" });
  const storage = openSqliteStorage(join(dir, "kiro-learn.db"));
  const rng = createRng(options.seed);
  const vectors = new Map<string, Float32Array>();
  for (const namespace of options.namespaces ?? ["ns"]) {
    // A shared offset, like real embeddings' common component: what centring is for.
    const offset = Float32Array.from({ length: options.dim }, () => rng.next() * 0.5);
    const records = Array.from({ length: options.count }, () => {
      const record = makeRecord({ namespace });
      const vector = Float32Array.from(offset, (o) => o + rng.next() * 2 - 1);
      vectors.set(record.record_id, vector);
      return { record, embedding: { model: "m1", vector } };
    });
    await storage.commitExtraction({ consumedSeqs: [], records });
  }
  return { storage, dir, vectors };
}

function randomQuery(rng: { next(): number }, dim: number): Float32Array {
  return Float32Array.from({ length: dim }, () => rng.next() * 2 - 1);
}

Deno.test("bits: the shortlist rescored with stored vectors gives the exact top k where the codes alone misorder", async () => {
  const dim = 32;
  const { storage, dir, vectors } = await bitsStore({ count: 3 * SHORTLIST_MIN, dim, seed: 7 });
  try {
    const exact = new VectorIndex(storage, { model: "m1", dim });
    const bits = new VectorIndex(storage, { model: "m1", dim, precision: "bits" });
    assert.equal(bits.precision, "bits");
    // The same codes the index holds, ranked by their estimate alone.
    const codes = new SignCodes(dim, vectors.size);
    const ids = [...vectors.keys()];
    const units = ids.map((id) => unitOrZero(vectors.get(id)!));
    codes.center(units.slice(0, LOAD_PAGE));
    units.forEach((unit, slot) => codes.write(slot, unit));
    const rng = createRng(11);
    let misordered = 0;
    for (let i = 0; i < 40; i++) {
      const q = randomQuery(rng, dim);
      for (
        const options of [{ k: 10 }, { k: 10, collapseAbove: 0.95 }, { k: 3, minSimilarity: 0.2 }]
      ) {
        const want = await exact.search("ns", q, options);
        const got = await bits.search("ns", q, options);
        assert.deepEqual(got, want, "same ids, same order, the same similarities");
      }
      const byCodes = new Set(
        Array.from(codes.shortlist(unitOrZero(q), { count: ids.length, size: 10 }), (s) => ids[s]),
      );
      const top = await exact.search("ns", q, { k: 10 });
      if (top.some((h) => !byCodes.has(h.record_id))) misordered++;
    }
    assert.ok(misordered > 0, "the codes alone would have returned another top 10");
    assert.equal(bits.size("ns"), 3 * SHORTLIST_MIN);
    // 32 dimensions: 4 bytes of codes and a 4-byte factor per vector, against 128 bytes.
    assert.ok(bits.stats().bytes * 12 < exact.stats().bytes);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bits: namespaces stay isolated, in the codes and in the rescoring", async () => {
  const dim = 16;
  const { storage, dir, vectors } = await bitsStore({
    count: SHORTLIST_MIN + 50,
    dim,
    seed: 3,
    namespaces: ["ns1", "ns1-other"],
  });
  try {
    const bits = new VectorIndex(storage, { model: "m1", dim, precision: "bits" });
    const others = [...(await storage.listEmbeddings("ns1-other", { model: "m1" }))];
    const owned = new Set(
      (await storage.listEmbeddings("ns1", { model: "m1" })).map((r) => r.record_id),
    );
    for (const other of others.slice(0, 20)) {
      // The other namespace's own vector, asked in ns1: only ns1's records answer.
      const hits = await bits.search("ns1", vectors.get(other.record_id)!, { k: 10 });
      assert.equal(hits.length, 10);
      assert.ok(hits.every((h) => owned.has(h.record_id)));
      const own = await bits.search("ns1-other", vectors.get(other.record_id)!, { k: 1 });
      assert.equal(own[0].record_id, other.record_id);
    }
    assert.equal(bits.isLoaded("ns1-other"), true);
    assert.equal(bits.isLoaded("ns1"), true);
    // Storage is the truth: a record deleted there while the index still holds its codes is
    // not rescored, so it does not answer.
    const deleted = others[0].record_id;
    await storage.deleteRecords([deleted]);
    assert.equal(bits.has(deleted), true);
    const hits = await bits.search("ns1-other", vectors.get(deleted)!, { k: 5 });
    assert.equal(hits.length, 5);
    assert.ok(hits.every((h) => h.record_id !== deleted));
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bits: dropped after the idle time, reloaded with the same answers; writes and deletes", async () => {
  const dim = 24;
  const { storage, dir } = await bitsStore({ count: 2 * SHORTLIST_MIN, dim, seed: 5 });
  try {
    const bits = new VectorIndex(storage, { model: "m1", dim, precision: "bits" });
    const rng = createRng(9);
    const queries = Array.from({ length: 10 }, () => randomQuery(rng, dim));
    const before = [];
    for (const q of queries) before.push(await bits.search("ns", q, { k: 10 }));
    const held = bits.stats().bytes;
    assert.ok(held > 0);
    assert.deepEqual(bits.unloadIdle(60_000, { now: Date.now() + 60_000 }), ["ns"]);
    assert.equal(bits.isLoaded("ns"), false);
    assert.equal(bits.stats().bytes, 0);
    for (const [i, q] of queries.entries()) {
      assert.deepEqual(await bits.search("ns", q, { k: 10 }), before[i]);
    }
    assert.equal(bits.stats().bytes, held);
    // A new record (stored first, as callers do) answers at once; a deleted one never again.
    const record = makeRecord({ namespace: "ns" });
    await storage.commitExtraction({
      consumedSeqs: [],
      records: [{ record, embedding: { model: "m1", vector: queries[0] } }],
    });
    bits.upsert("ns", record.record_id, queries[0]);
    const hits = await bits.search("ns", queries[0], { k: 1 });
    assert.equal(hits[0].record_id, record.record_id);
    assert.ok(Math.abs(hits[0].similarity - 1) < 1e-6);
    const gone = before[1][0].record_id;
    bits.delete([gone]);
    assert.equal(bits.has(gone), false);
    assert.ok((await bits.search("ns", queries[1], { k: 10 })).every((h) => h.record_id !== gone));
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bits: a record deleted while its shortlist is being read does not answer", async () => {
  const source = new FakeSource();
  for (let i = 0; i < 20; i++) source.put("ns", `r${i}`, v(1, i / 10));
  let gate: Promise<void> | null = null;
  const bitsSource: VectorSource = {
    listEmbeddings: (ns, o) => source.listEmbeddings(ns, o),
    getEmbeddings: async (ns, o) => {
      const rows = (await source.listEmbeddings(ns, o))
        .filter((r) => o.recordIds.includes(r.record_id))
        .map((r) => ({ record_id: r.record_id, vector: r.vector.slice() }));
      await gate;
      return rows;
    },
  };
  const index = new VectorIndex(bitsSource, { model: "m1", dim: 2, precision: "bits" });
  assert.equal((await index.search("ns", v(1, 0), { k: 1 }))[0].record_id, "r0");
  const released = Promise.withResolvers<void>();
  gate = released.promise;
  const pending = index.search("ns", v(1, 0), { k: 1 });
  await new Promise((r) => setTimeout(r, 0));
  index.delete(["r0"]);
  released.resolve();
  assert.equal((await pending)[0].record_id, "r1");
});

Deno.test("bits: a source without getEmbeddings is refused up front", () => {
  assert.throws(
    () => new VectorIndex(new FakeSource(), { model: "m1", dim: 2, precision: "bits" }),
    /getEmbeddings/,
  );
});
