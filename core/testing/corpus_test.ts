import assert from "node:assert/strict";
import fc from "fast-check";
import { EventSchema, MemoryRecordSchema } from "../schemas/mod.ts";
import {
  corpusNamespace,
  createRng,
  EXAMPLE_QUERIES,
  generateEvents,
  generateQueries,
  generateRecords,
  seededUlid,
} from "./corpus.ts";

const NS = corpusNamespace("corpus-test");

Deno.test("createRng: equal seeds give equal sequences, different seeds differ", () => {
  const draw = (seed: number) => {
    const rng = createRng(seed);
    return Array.from({ length: 50 }, () => rng.next());
  };
  assert.deepEqual(draw(42), draw(42));
  assert.notDeepEqual(draw(42), draw(43));
});

Deno.test("createRng: property, values stay in range", () => {
  fc.assert(
    fc.property(fc.integer(), fc.integer({ min: -50, max: 50 }), fc.nat(100), (seed, min, span) => {
      const rng = createRng(seed);
      for (let i = 0; i < 20; i++) {
        const x = rng.next();
        assert.ok(x >= 0 && x < 1);
        const n = rng.int(min, min + span);
        assert.ok(Number.isInteger(n) && n >= min && n <= min + span);
      }
      const picked = rng.sample([1, 2, 3, 4, 5], 3);
      assert.equal(new Set(picked).size, 3);
    }),
  );
});

Deno.test("records: deterministic for a seed", () => {
  const a = generateRecords(50, { seed: 7, namespace: NS });
  const b = generateRecords(50, { seed: 7, namespace: NS });
  const c = generateRecords(50, { seed: 8, namespace: NS });
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

Deno.test("records: valid per MemoryRecordSchema and shaped like extraction output", () => {
  const records = generateRecords(500, { seed: 1, namespace: NS });
  const ids = new Set<string>();
  for (const record of records) {
    assert.deepEqual(MemoryRecordSchema.parse(record), record);
    assert.ok(record.summary.length >= 200 && record.summary.length <= 600, record.summary);
    assert.ok(record.facts.length >= 2 && record.facts.length <= 5);
    assert.ok(record.concepts.length >= 1 && record.concepts.length <= 4);
    assert.ok(record.files_touched.length >= 1 && record.files_touched.length <= 4);
    assert.equal(record.namespace, NS);
    ids.add(record.record_id);
  }
  assert.equal(ids.size, records.length, "record ids are unique");
  const sorted = [...records].sort((x, y) => x.created_at.localeCompare(y.created_at));
  assert.deepEqual(sorted, records, "created_at follows the index");
});

Deno.test("records: property, any seed and start index gives valid records", () => {
  fc.assert(
    fc.property(fc.integer(), fc.nat(1_000_000), (seed, startIndex) => {
      for (const record of generateRecords(3, { seed, namespace: NS, startIndex })) {
        MemoryRecordSchema.parse(record);
      }
    }),
    { numRuns: 100 },
  );
});

Deno.test("events: deterministic, valid, a realistic mix", () => {
  const events = generateEvents(400, { seed: 3, namespace: NS });
  assert.deepEqual(events, generateEvents(400, { seed: 3, namespace: NS }));
  assert.equal(events.length, 400);
  const kinds = new Map<string, number>();
  for (const event of events) {
    assert.deepEqual(EventSchema.parse(event), event);
    kinds.set(event.kind, (kinds.get(event.kind) ?? 0) + 1);
    if (event.kind === "tool_use") {
      const size = JSON.stringify(event.body).length;
      assert.ok(size >= 900 && size <= 2300, `tool_use body of ${size} chars`);
    }
  }
  assert.equal(new Set(events.map((e) => e.event_id)).size, events.length);
  assert.ok((kinds.get("tool_use") ?? 0) > (kinds.get("prompt") ?? 0));
  assert.ok((kinds.get("prompt") ?? 0) > 0 && (kinds.get("session_summary") ?? 0) > 0);
});

Deno.test("queries: deterministic, examples first, long ones have 60+ words", () => {
  const queries = generateQueries(200, { seed: 11 });
  assert.deepEqual(queries, generateQueries(200, { seed: 11 }));
  assert.equal(queries.length, 200);
  assert.deepEqual(
    queries.slice(0, EXAMPLE_QUERIES.length).map((q) => q.text),
    [...EXAMPLE_QUERIES],
  );
  const kinds = new Set(queries.map((q) => q.kind));
  assert.deepEqual([...kinds].sort(), ["example", "long", "punctuated", "short"]);
  for (const query of queries.filter((q) => q.kind === "long")) {
    assert.ok(query.text.trim().split(/\s+/).length >= 60, query.text);
  }
  assert.ok(queries.some((q) => /["'?()]/.test(q.text) && q.kind === "punctuated"));
});

Deno.test("seededUlid and corpusNamespace: valid and stable", () => {
  const rng = createRng(5);
  const ulid = seededUlid(rng, Date.UTC(2025, 0, 1));
  assert.match(ulid, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
  assert.equal(ulid.slice(0, 10), seededUlid(createRng(6), Date.UTC(2025, 0, 1)).slice(0, 10));
  assert.equal(corpusNamespace("x"), corpusNamespace("x"));
  assert.notEqual(corpusNamespace("x"), corpusNamespace("y"));
  assert.match(corpusNamespace("x"), /^\/actor\/bench\/project\/[0-9a-f]{64}\/$/);
});
