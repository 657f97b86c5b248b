import assert from "node:assert/strict";
import fc from "fast-check";
import { eventArb, makeEvent } from "../testing/mod.ts";
import { EventSchema, MAX_EVENT_BODY_CHARS } from "./mod.ts";

Deno.test("every generated event round-trips through JSON and the schema unchanged", () => {
  fc.assert(fc.property(eventArb(), (event) => {
    const parsed = EventSchema.parse(JSON.parse(JSON.stringify(event)));
    assert.deepEqual(parsed, JSON.parse(JSON.stringify(event)));
  }));
});

Deno.test("kiro-learn's schema-version-1 event from the wire is accepted", () => {
  const wire = {
    event_id: "01JABCDEFGHJKMNPQRSTVWXYZ0",
    session_id: "4f1c2e9a-0000-4000-8000-000000000000",
    actor_id: "alice",
    namespace: `/actor/alice/project/${"b".repeat(64)}/`,
    schema_version: 1,
    kind: "tool_use",
    body: { type: "json", data: { tool_name: "fs_read", tool_input: {}, tool_response: {} } },
    valid_time: "2026-04-30T10:00:00.000Z",
    source: { surface: "kiro-cli", version: "0.16.0", client_id: "laptop" },
  };
  assert.equal(EventSchema.safeParse(wire).success, true);
});

Deno.test("invalid events are rejected with a path to the bad field", () => {
  const cases: [string, unknown][] = [
    ["event_id", { ...makeEvent(), event_id: "not-a-ulid" }],
    ["namespace", { ...makeEvent(), namespace: "/actor/a/project/b" }],
    ["schema_version", { ...makeEvent(), schema_version: 2 }],
    ["kind", { ...makeEvent(), kind: "other" }],
    ["valid_time", { ...makeEvent(), valid_time: "yesterday" }],
    ["source", { ...makeEvent(), source: { surface: "vim", version: "1", client_id: "h" } }],
    ["body", { ...makeEvent(), body: { type: "message", turns: [] } }],
  ];
  for (const [field, value] of cases) {
    const result = EventSchema.safeParse(value);
    assert.equal(result.success, false, field);
    assert.equal(String(result.error!.issues[0].path[0]), field);
  }
});

Deno.test("a body over 1 MiB serialised is refused, one at the limit is accepted", () => {
  const overhead = JSON.stringify({ type: "text", content: "" }).length;
  const atLimit = makeEvent({
    body: { type: "text", content: "x".repeat(MAX_EVENT_BODY_CHARS - overhead) },
  });
  assert.equal(EventSchema.safeParse(atLimit).success, true);
  const over = makeEvent({ body: { type: "json", data: "x".repeat(MAX_EVENT_BODY_CHARS) } });
  assert.equal(EventSchema.safeParse(over).success, false);
});
