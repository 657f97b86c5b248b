import assert from "node:assert/strict";
import fc from "fast-check";
import { makeRecord, recordArb } from "../testing/mod.ts";
import {
  CONTEXT_HEADER,
  estimateTokens,
  formatContext,
  isLifecycleRecord,
  relativeToRoot,
} from "./context_format.ts";

Deno.test("the block has the seed's fixed format", () => {
  const a = makeRecord({ title: "Use WAL", summary: "SQLite runs in WAL mode.", facts: ["f1"] });
  const b = makeRecord({ title: "Port", summary: "Collector binds 21100.", facts: [] });
  const { context, record_ids } = formatContext([a, b]);
  assert.equal(
    context,
    `${CONTEXT_HEADER}\n\n### Use WAL\n\nSQLite runs in WAL mode.\n\n- f1\n\n### Port\n\nCollector binds 21100.`,
  );
  assert.deepEqual(record_ids, [a.record_id, b.record_id]);
});

Deno.test("no records gives an empty context (the shim then prints nothing)", () => {
  assert.deepEqual(formatContext([]), { context: "", record_ids: [], tokens: 0 });
});

Deno.test("the block never exceeds the token budget and keeps rank order", () => {
  fc.assert(fc.property(
    fc.array(recordArb(), { minLength: 1, maxLength: 15 }),
    fc.integer({ min: 60, max: 3000 }),
    (records, budget) => {
      const out = formatContext(records, { tokenBudget: budget });
      assert.ok(out.tokens <= budget, `${out.tokens} > ${budget}`);
      assert.equal(out.tokens, estimateTokens(out.context));
      const order = out.record_ids.map((id) => records.findIndex((r) => r.record_id === id));
      assert.deepEqual(order, [...order].sort((x, y) => x - y));
    },
  ));
});

Deno.test("an oversized best record is cut rather than dropped", () => {
  const big = makeRecord({ title: "Big", summary: "word ".repeat(800).trim() });
  const out = formatContext([big], { tokenBudget: 200 });
  assert.deepEqual(out.record_ids, [big.record_id]);
  assert.ok(out.tokens <= 200);
  assert.ok(out.context.endsWith("…"));
});

Deno.test("relativeToRoot: whole paths under the root only", () => {
  assert.equal(
    relativeToRoot("see /srv/app/src/a.ts and /srv/app", "/srv/app"),
    "see src/a.ts and .",
  );
  assert.equal(
    relativeToRoot("/srv/app2/x and /x/srv/app/y", "/srv/app/"),
    "/srv/app2/x and /x/srv/app/y",
  );
  assert.equal(relativeToRoot("/srv/app/a", undefined), "/srv/app/a");
  assert.equal(relativeToRoot("/srv/app/a", "relative/root"), "/srv/app/a");
});

Deno.test("isLifecycleRecord: lifecycle notes made into records, nothing else", () => {
  assert.ok(
    isLifecycleRecord({ title: "session ended (other)", summary: "session ended (other)" }),
  );
  assert.ok(isLifecycleRecord({ title: "Turn: hi", summary: "Request: hi\n\nsession started" }));
  assert.ok(
    !isLifecycleRecord({
      title: "Session handling",
      summary: "session ended early because of a bug",
    }),
  );
});
