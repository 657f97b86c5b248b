// No database of the Node kiro-learn is at hand here: the fixture is built with the schema its
// migrations 0001–0005 define (../shared/reference/kiro-learn-spec.md §4), rows as it writes them.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeEvent, makeRecord } from "@kiro-learn/core/testing";
import { startTestDaemon } from "../tooling/testing/mod.ts";
import { eventFromNodeRow, recordFromNodeRow } from "./_node_kiro_learn.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

function nodeDatabase(path: string) {
  const db = new DatabaseSync(path);
  db.exec(`
    CREATE TABLE _migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE events (
      event_id TEXT PRIMARY KEY, parent_event_id TEXT, session_id TEXT NOT NULL,
      actor_id TEXT NOT NULL, namespace TEXT NOT NULL, schema_version INTEGER NOT NULL,
      kind TEXT NOT NULL, body_json TEXT NOT NULL, valid_time TEXT NOT NULL,
      transaction_time TEXT NOT NULL, source_json TEXT NOT NULL, content_hash TEXT,
      project_path TEXT
    ) STRICT;
    CREATE TABLE memory_records (
      record_id TEXT PRIMARY KEY NOT NULL, namespace TEXT NOT NULL, strategy TEXT NOT NULL,
      title TEXT NOT NULL, summary TEXT NOT NULL, facts_json TEXT NOT NULL DEFAULT '[]',
      source_event_ids_json TEXT NOT NULL, created_at TEXT NOT NULL,
      concepts_json TEXT NOT NULL DEFAULT '[]', files_touched_json TEXT NOT NULL DEFAULT '[]',
      observation_type TEXT NOT NULL DEFAULT 'tool_use', embedding BLOB DEFAULT NULL
    ) STRICT;
  `);
  return db;
}

Deno.test("Node rows map to our shapes, ids kept", () => {
  const record = recordFromNodeRow({
    record_id: "mr_01JDQ3Z0000000000000000000",
    namespace: "/actor/a/project/p/",
    strategy: "llm-summary",
    title: "t",
    summary: "s",
    facts_json: '["f"]',
    concepts_json: "not json",
    files_touched_json: '["a.ts"]',
    observation_type: "decision",
    source_event_ids_json: "[]",
    created_at: "2026-01-01T00:00:00.000Z",
  });
  assert.equal(record.record_id, "mr_01JDQ3Z0000000000000000000");
  assert.deepEqual(record.facts, ["f"]);
  assert.deepEqual(record.concepts, [], "a broken JSON column reads as empty");
  const event = eventFromNodeRow({ event_id: "E", body_json: '{"type":"text","content":"x"}' });
  assert.deepEqual(event.body, { type: "text", content: "x" });
  assert.equal(event.schema_version, 1);
});

Deno.test("kiro-learn import kiro-learn: records and events of a Node database, ids kept, once", async () => {
  await using daemon = await startTestDaemon();
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kiro-learn-node.db`;
  const db = nodeDatabase(path);
  const events = [makeEvent(), makeEvent()];
  const records = [
    makeRecord({
      title: "Retry the payments client on 409, never on 500",
      strategy: "llm-summary",
    }),
    makeRecord({
      title: "Run the integration tests with --runInBand",
      strategy: "mcp_observation",
    }),
  ];
  for (const e of events) {
    db.prepare(
      `INSERT INTO events VALUES (?, NULL, ?, ?, ?, 1, ?, ?, ?, ?, ?, NULL, NULL)`,
    ).run(
      e.event_id,
      e.session_id,
      e.actor_id,
      e.namespace,
      e.kind,
      JSON.stringify(e.body),
      e.valid_time,
      e.valid_time,
      JSON.stringify(e.source),
    );
  }
  // A row the Node version could hold but ours refuses: reported, and the rest still comes in.
  db.prepare(
    `INSERT INTO events VALUES ('bad', NULL, 's', 'a', 'n', 1, 'prompt', '{}', 'x', 'x', '{}', NULL, NULL)`,
  )
    .run();
  for (const r of records) {
    db.prepare(`INSERT INTO memory_records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`).run(
      r.record_id,
      r.namespace,
      r.strategy,
      r.title,
      r.summary,
      JSON.stringify(r.facts),
      JSON.stringify(r.source_event_ids),
      r.created_at,
      JSON.stringify(r.concepts),
      JSON.stringify(r.files_touched),
      r.observation_type,
    );
  }
  db.close();
  const before = await (await daemon.fetch("/v1/stats")).json();
  const run = (args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-run",
        "--allow-net=127.0.0.1,localhost",
        `${ROOT}collector/main.ts`,
        ...args,
      ],
      env: daemon.env,
    }).output();
  const out = (o: Deno.CommandOutput) =>
    new TextDecoder().decode(o.stdout) + new TextDecoder().decode(o.stderr);
  try {
    const first = await run(["import", "kiro-learn", path]);
    assert.equal(first.code, 0, out(first));
    assert.match(out(first), /imported records of .*: 2 added, 0 already present/);
    assert.match(out(first), /imported events of .*: 2 added, 0 already present, .* 1 rejected/);
    for (const r of records) {
      const got = await daemon.fetch(`/v1/memories/${r.record_id}`);
      assert.equal(got.status, 200, `record ${r.record_id} kept its id`);
      await got.body?.cancel();
    }
    const after = await (await daemon.fetch("/v1/stats")).json();
    assert.deepEqual(after.queue, before.queue, "history is stored, not queued for extraction");
    const again = await run(["import", "kiro-learn", path]);
    assert.match(out(again), /records .*: 0 added, 2 already present/);
    assert.match(out(again), /events .*: 0 added, 2 already present/);
    // Our own database at the shared default path is refused with what to do.
    const own = await run(["import", "kiro-learn", `${daemon.dataDir}/kiro-learn.db`]);
    assert.equal(own.code, 2);
    assert.match(out(own), /this kiro-learn's own database/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
