// The team sync Worker's permissions: the team database's host:port and the SQLite files, its
// own code to load, and nothing else. (Its supervision against a real PostgreSQL being killed,
// in a real daemon: pg_kill_test.ts.)
import assert from "node:assert/strict";
import { teamWorkerCodePaths } from "../permissions/mod.ts";
import { teamWorkerPermissions } from "./mod.ts";

Deno.test("the sync Worker may reach only the team database and the SQLite files", () => {
  const db = "/home/alice/.kiro-learn/kiro-learn.db";
  const permissions = teamWorkerPermissions({
    url: "postgres://alice@db.example.internal:6543/team",
    dbPath: db,
  });
  assert.deepEqual(permissions.net, ["db.example.internal:6543"]);
  const files = [db, `${db}-wal`, `${db}-shm`];
  assert.deepEqual(permissions.write, files);
  assert.deepEqual(permissions.read, [...teamWorkerCodePaths(), ...files]);
  // Code only: nothing of the data dir but the database, nothing of the home folder.
  for (const path of teamWorkerCodePaths()) {
    assert.ok(!path.startsWith("/home/alice"), path);
    assert.ok(Deno.statSync(path).isDirectory, path);
  }
  assert.deepEqual(permissions.env, ["PGAPPNAME", "PGTARGETSESSIONATTRS"]);
  for (const name of ["run", "ffi", "sys", "import"] as const) {
    assert.equal(permissions[name], false, name);
  }
});
