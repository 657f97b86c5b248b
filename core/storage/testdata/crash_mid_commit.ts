// Child process for the crash test: starts the extraction commit by hand, reports that it is
// inside the transaction, then waits to be SIGKILLed before COMMIT.
import { openSqliteStorage } from "../sqlite.ts";
import { makeRecord } from "../../testing/mod.ts";

const [path, projectId] = Deno.args;
const storage = openSqliteStorage(path);
const entries = await storage.snapshotQueue(projectId);
const db = storage.db;
db.exec("BEGIN IMMEDIATE");
for (const entry of entries) {
  db.prepare("DELETE FROM extraction_queue WHERE seq = ?").run(entry.seq);
}
const record = makeRecord({ namespace: entries[0].namespace });
db.prepare(
  "INSERT INTO memory_records (record_id, namespace, strategy, title, summary, source_event_ids_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
).run(record.record_id, record.namespace, "llm-summary", "t", "s", "[]", record.created_at);
console.log("in-transaction");
// A timer keeps the process alive until the SIGKILL: a bare never-settling promise lets Deno
// see an empty event loop and exit on its own, racing the parent's kill.
setInterval(() => {}, 60_000);
