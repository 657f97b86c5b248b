// Two fixtures: a database the Node kiro-learn's own storage code wrote (testdata/README.md),
// and one built here with the schema its migrations define, for the rows only a hand-made file
// holds (a row our schema refuses).
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeEvent, makeRecord } from "@kiro-learn/core/testing";
import { processText, runKiroLearn, startTestDaemon } from "../tooling/testing/mod.ts";
import { eventFromNodeRow, recordFromNodeRow } from "./_node_kiro_learn.ts";

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
  const run = (args: string[]) => runKiroLearn(args, { env: daemon.env });
  const out = processText;
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

// testdata/node_kiro_learn.db was written by the Node kiro-learn's own storage code (see
// testdata/README.md); it is read here with our SQLite binding, independently of the importer.
const REAL_NODE_DB = new URL("./testdata/node_kiro_learn.db", import.meta.url).pathname;
// Secrets the Node version stored as given (it scrubs only <private> spans, and only in events).
const NODE_DB_SECRETS = [
  "ghp_R8sXk2LqPz7VnW4cYt9BdF3hJm6QaE1uNo0K",
  "AKIAQ3EGRTY7ZLMWX4NP",
  "Tr0ub4dor&3",
];

function nodeRows(path: string) {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const ids = (sql: string) => db.prepare(sql).all().map((r) => String(r.id));
    return {
      records: db.prepare("SELECT * FROM memory_records").all(),
      recordIds: ids("SELECT record_id AS id FROM memory_records ORDER BY 1"),
      eventIds: ids("SELECT event_id AS id FROM events ORDER BY 1"),
      migrations: ids("SELECT name AS id FROM _migrations ORDER BY version"),
    };
  } finally {
    db.close();
  }
}

function everyStoredText(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const tables = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'",
    ).all().map((r) => String(r.name));
    return tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t}"`).all())).join("\n");
  } finally {
    db.close();
  }
}

Deno.test("the real Node kiro-learn database: every row in, ids kept, secrets scrubbed, once, searchable", async () => {
  const node = nodeRows(REAL_NODE_DB);
  assert.deepEqual(node.migrations.slice(0, 1), ["0001_init"], "a database of the Node version");
  assert.ok(node.records.length > 0 && node.eventIds.length > 0);
  const stored = everyStoredText(REAL_NODE_DB);
  for (const secret of NODE_DB_SECRETS) {
    assert.ok(stored.includes(secret), `fixture holds ${secret}`);
  }
  const fixtureBytes = await Deno.readFile(REAL_NODE_DB);

  await using daemon = await startTestDaemon();
  const run = (args: string[]) => runKiroLearn(args, { env: daemon.env });
  const first = await run(["import", "kiro-learn", REAL_NODE_DB]);
  assert.equal(first.code, 0, processText(first));
  const n = { r: node.recordIds.length, e: node.eventIds.length };
  assert.match(processText(first), new RegExp(`records .*: ${n.r} added, 0 already present`));
  assert.match(processText(first), new RegExp(`events .*: ${n.e} added, 0 already present`));
  assert.doesNotMatch(processText(first), /[1-9]\d* rejected/);

  for (const row of node.records) {
    const got = await daemon.fetch(`/v1/memories/${row.record_id}`);
    assert.equal(got.status, 200, `record ${row.record_id} kept its id`);
    const { record, source_events } = await got.json();
    const want = recordFromNodeRow(row);
    // Provenance survives: records citing imported events (extraction's) show them.
    const cited = (want.source_event_ids as string[]).filter((id) => node.eventIds.includes(id));
    assert.equal(source_events.length, cited.length, `${row.record_id} source events`);
    const clean = !NODE_DB_SECRETS.some((s) => JSON.stringify(want).includes(s)) &&
      !JSON.stringify(want).includes("<private>");
    for (const key of Object.keys(want)) {
      if (clean || !["summary", "facts"].includes(key)) {
        assert.deepEqual(record[key], want[key], `${row.record_id}.${key}`);
      }
    }
  }
  const ours = everyStoredText(`${daemon.dataDir}/kiro-learn.db`);
  for (const id of node.eventIds) assert.ok(ours.includes(id), `event ${id} kept its id`);
  for (const secret of NODE_DB_SECRETS) assert.ok(!ours.includes(secret), `${secret} scrubbed`);

  const again = await run(["import", "kiro-learn", REAL_NODE_DB]);
  assert.equal(again.code, 0, processText(again));
  assert.match(processText(again), new RegExp(`records .*: 0 added, ${n.r} already present`));
  assert.match(processText(again), new RegExp(`events .*: 0 added, ${n.e} already present`));
  assert.deepEqual(
    await Deno.readFile(REAL_NODE_DB),
    fixtureBytes,
    "the Node file is never changed",
  );

  // Each record is found by its own title in its own project.
  for (const row of node.records) {
    const found = await run([
      "search",
      String(row.title),
      "--namespace",
      String(row.namespace),
      "--json",
    ]);
    assert.equal(found.code, 0, processText(found));
    const ids = (JSON.parse(new TextDecoder().decode(found.stdout)) as { record_id: string }[])
      .map((r) => r.record_id);
    assert.ok(ids.includes(String(row.record_id)), `${row.title}: ${ids}`);
  }
});

Deno.test("a Node database without an events table: its records come in, and the summary says there were no events", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "kiro-learn-node-noevents-" });
  try {
    const path = `${tmp}/kiro-learn.db`;
    await Deno.copyFile(REAL_NODE_DB, path);
    const db = new DatabaseSync(path);
    const records = (db.prepare("SELECT count(*) AS n FROM memory_records").get() as { n: number })
      .n;
    db.exec("DROP TABLE events");
    db.close();
    await using daemon = await startTestDaemon();
    const out = await runKiroLearn(["import", "kiro-learn", path], { env: daemon.env });
    assert.equal(out.code, 0, processText(out));
    assert.match(processText(out), new RegExp(`records .*: ${records} added, 0 already present`));
    assert.match(processText(out), /no events in .* \(the database has no events table\)/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
