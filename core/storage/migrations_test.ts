// Migrations are idempotent: however many times a database file is opened or migrated, and from
// whichever partly migrated state, it ends with the same history and the same schema.
import assert from "node:assert/strict";
import fc from "fast-check";
import { DatabaseSync } from "node:sqlite";
import { makeRecord, TEST_NAMESPACE } from "../testing/mod.ts";
import { migrate, migrationChecksum, MIGRATIONS } from "./migrations.ts";
import { openSqliteStorage } from "./sqlite.ts";

interface MigrationRow {
  version: number;
  name: string;
  checksum: string;
  applied_at: string;
}

interface Snapshot {
  migrations: MigrationRow[];
  /** sqlite_master without rootpage (page numbers depend on the order tables were written). */
  schema: { type: string; name: string; tbl_name: string; sql: string | null }[];
}

function snapshot(path: string): Snapshot {
  const db = new DatabaseSync(path);
  try {
    return {
      migrations: db.prepare(
        "SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version",
      ).all() as unknown as MigrationRow[],
      schema: db.prepare(
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name",
      ).all() as unknown as Snapshot["schema"],
    };
  } finally {
    db.close();
  }
}

/** What the history must be once every migration ran, apart from the times. */
const EXPECTED_HISTORY = MIGRATIONS.map((m) => ({
  version: m.version,
  name: m.name,
  checksum: migrationChecksum(m),
}));

const withoutTimes = (rows: MigrationRow[]) =>
  rows.map(({ version, name, checksum }) => ({ version, name, checksum }));

type Step = { kind: "open" } | { kind: "migrate" };

const step: fc.Arbitrary<Step> = fc.constantFrom<Step>({ kind: "open" }, { kind: "migrate" });

Deno.test("property: any number of opens and migrate calls leave the same history and schema", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-migrate-" });
  try {
    // The reference: a fresh file opened once.
    const referencePath = `${dir}/reference.db`;
    openSqliteStorage(referencePath).close();
    const reference = snapshot(referencePath);
    assert.deepEqual(withoutTimes(reference.migrations), EXPECTED_HISTORY);
    assert.ok(reference.schema.some((row) => row.name === "memory_records"));

    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        // Start from a file that already has the first `partial` migrations (0: a new file).
        fc.integer({ min: 0, max: MIGRATIONS.length }),
        fc.array(step, { minLength: 1, maxLength: 6 }),
        async (partial, steps) => {
          const path = `${dir}/run-${run++}.db`;
          if (partial > 0) {
            const db = new DatabaseSync(path);
            try {
              migrate(db, MIGRATIONS.slice(0, partial));
            } finally {
              db.close();
            }
          }
          // A record written after the first full migration must survive every later one.
          const record = makeRecord({ title: `kept through run ${run}` });
          let first: Snapshot | undefined;
          for (const [i, s] of steps.entries()) {
            if (s.kind === "open") {
              const storage = openSqliteStorage(path);
              if (i === 0) await storage.putRecord(record);
              storage.close();
            } else {
              const db = new DatabaseSync(path);
              try {
                const applied = migrate(db);
                const expected = i === 0 ? MIGRATIONS.slice(partial).map((m) => m.version) : [];
                assert.deepEqual(applied, expected, `step ${i}: migrate applied ${applied}`);
              } finally {
                db.close();
              }
            }
            const now = snapshot(path);
            first ??= now;
            // Once migrated, nothing changes: not even the recorded times.
            assert.deepEqual(now, first, `step ${i} (${s.kind}) changed the database`);
          }
          const final = snapshot(path);
          assert.deepEqual(withoutTimes(final.migrations), EXPECTED_HISTORY);
          assert.deepEqual(final.schema, reference.schema);
          if (steps[0].kind === "open") {
            const storage = openSqliteStorage(path);
            try {
              const [got] = await storage.getRecords([record.record_id]);
              assert.equal(got?.title, record.title);
              const hits = await storage.searchLexical(TEST_NAMESPACE, "kept", { limit: 5 });
              assert.deepEqual(hits.map((h) => h.record.record_id), [record.record_id]);
            } finally {
              storage.close();
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
