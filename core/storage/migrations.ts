/**
 * Numbered, append-only schema migrations with drift detection.
 *
 * Each migration runs in its own transaction and is recorded with a checksum of its SQL, so an
 * edited or reordered migration is caught at open time instead of silently diverging.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { createHash } from "node:crypto";
import { OBSERVATION_TYPES } from "../schemas/mod.ts";
import { rekeyCommitRecords } from "./_record_ids.ts";

/** One schema step. Never edit a released one: append a new one. */
export interface Migration {
  /** Version, starting at 1, strictly increasing by one. */
  version: number;
  /** Short snake_case name. */
  name: string;
  /** DDL run inside the migration's transaction. */
  sql: string;
  /**
   * A data step run after `sql` in the same transaction, for what SQL alone cannot compute (a
   * hash). Its code is part of the release like the SQL; `sql` names what it does.
   */
  data?: (db: DatabaseSync) => void;
}

const observationTypes = OBSERVATION_TYPES.map((t) => `'${t}'`).join(", ");

/** Every migration, in order. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "init",
    sql: `
CREATE TABLE events (
  event_id TEXT PRIMARY KEY,
  parent_event_id TEXT,
  session_id TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  project_id TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  kind TEXT NOT NULL,
  body_json TEXT NOT NULL,
  valid_time TEXT NOT NULL,
  transaction_time TEXT NOT NULL,
  source_json TEXT NOT NULL,
  surface TEXT NOT NULL,
  project_path TEXT,
  content_hash TEXT
) STRICT;
CREATE INDEX events_namespace_time ON events(namespace, valid_time);
CREATE INDEX events_time ON events(valid_time);
CREATE INDEX events_session ON events(session_id);

CREATE TABLE extraction_queue (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  kind TEXT NOT NULL,
  body_json TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  surface TEXT NOT NULL,
  source_event_ids_json TEXT NOT NULL,
  compacted INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL
) STRICT;
CREATE INDEX extraction_queue_project ON extraction_queue(project_id, seq);

CREATE TABLE memory_records (
  id INTEGER PRIMARY KEY,
  record_id TEXT NOT NULL UNIQUE,
  namespace TEXT NOT NULL,
  strategy TEXT NOT NULL,
  title TEXT NOT NULL,
  summary TEXT NOT NULL,
  facts_json TEXT NOT NULL DEFAULT '[]',
  facts_text TEXT NOT NULL DEFAULT '',
  concepts_json TEXT NOT NULL DEFAULT '[]',
  files_touched_json TEXT NOT NULL DEFAULT '[]',
  observation_type TEXT NOT NULL DEFAULT 'tool_use' CHECK (observation_type IN (${observationTypes})),
  source_event_ids_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT,
  embedding BLOB,
  embedding_model TEXT,
  embedding_dim INTEGER,
  embed_failures INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX memory_records_namespace_created ON memory_records(namespace, created_at);

CREATE VIRTUAL TABLE memory_records_fts USING fts5(
  title, summary, facts_text,
  content='memory_records', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_records_fts_insert AFTER INSERT ON memory_records BEGIN
  INSERT INTO memory_records_fts(rowid, title, summary, facts_text)
  VALUES (new.id, new.title, new.summary, new.facts_text);
END;
CREATE TRIGGER memory_records_fts_delete AFTER DELETE ON memory_records BEGIN
  INSERT INTO memory_records_fts(memory_records_fts, rowid, title, summary, facts_text)
  VALUES ('delete', old.id, old.title, old.summary, old.facts_text);
END;
CREATE TRIGGER memory_records_fts_update AFTER UPDATE OF title, summary, facts_text ON memory_records
BEGIN
  INSERT INTO memory_records_fts(memory_records_fts, rowid, title, summary, facts_text)
  VALUES ('delete', old.id, old.title, old.summary, old.facts_text);
  INSERT INTO memory_records_fts(rowid, title, summary, facts_text)
  VALUES (new.id, new.title, new.summary, new.facts_text);
END;
CREATE VIRTUAL TABLE memory_records_fts_vocab USING fts5vocab(memory_records_fts, row);

CREATE TABLE retrievals (
  id INTEGER PRIMARY KEY,
  event_id TEXT,
  namespace TEXT NOT NULL,
  query TEXT NOT NULL,
  latency_ms REAL NOT NULL,
  tokens INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX retrievals_namespace_time ON retrievals(namespace, created_at);

CREATE TABLE retrieval_records (
  retrieval_id INTEGER NOT NULL REFERENCES retrievals(id) ON DELETE CASCADE,
  record_id TEXT NOT NULL REFERENCES memory_records(record_id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  score REAL NOT NULL,
  PRIMARY KEY (retrieval_id, rank)
) STRICT;
CREATE INDEX retrieval_records_record ON retrieval_records(record_id);
`,
  },
  {
    version: 2,
    name: "extraction_runs_and_llm_usage",
    sql: `
CREATE TABLE extraction_runs (
  id INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  started_at TEXT NOT NULL,
  duration_ms REAL NOT NULL,
  strategy TEXT NOT NULL,
  outcome TEXT NOT NULL,
  entries INTEGER NOT NULL,
  chunks INTEGER NOT NULL,
  records INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  chars_sent INTEGER NOT NULL,
  chars_received INTEGER NOT NULL,
  error TEXT,
  details_json TEXT NOT NULL DEFAULT '{}'
) STRICT;
CREATE INDEX extraction_runs_project ON extraction_runs(project_id, id);

CREATE TABLE llm_usage (
  day TEXT NOT NULL,
  project_id TEXT NOT NULL,
  purpose TEXT NOT NULL,
  calls INTEGER NOT NULL DEFAULT 0,
  chars_sent INTEGER NOT NULL DEFAULT 0,
  chars_received INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, project_id, purpose)
) STRICT;
`,
  },
  {
    version: 3,
    name: "record_merges",
    // One row per reconciliation merge: the summary it produced and the records it replaced, as
    // they were (merges delete their originals, so this is the only place the viewer can show
    // them from, and what an undo would restore). No foreign key to the summary: when a summary
    // is itself merged later its history stays; forgetting it deletes the history explicitly.
    sql: `
CREATE TABLE record_merges (
  id INTEGER PRIMARY KEY,
  summary_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  replaced_ids_json TEXT NOT NULL,
  replaced_json TEXT NOT NULL,
  merged_at TEXT NOT NULL
) STRICT;
CREATE INDEX record_merges_summary ON record_merges(summary_id);
CREATE INDEX record_merges_namespace ON record_merges(namespace, id);
`,
  },
  {
    version: 4,
    name: "memory_records_namespace_rowid",
    // Ordered by (namespace, rowid): "the newest N records of a namespace" without a sort, which
    // bounds lexical search to a namespace's own recent rows.
    sql: `CREATE INDEX memory_records_namespace ON memory_records(namespace);`,
  },
  {
    version: 5,
    name: "code_aware_search_text",
    // The changed paths and the identifier parts the tokenizer cannot see (camelCase, letter and
    // digit boundaries) become indexed columns of their own, so a search weighs each column.
    // Both are derived text: written by the storage with every record, versioned by
    // search_version, re-derived at open for rows of an older version (0 = never derived).
    sql: `ALTER TABLE memory_records ADD COLUMN files_text TEXT NOT NULL DEFAULT '';
ALTER TABLE memory_records ADD COLUMN code_text TEXT NOT NULL DEFAULT '';
ALTER TABLE memory_records ADD COLUMN search_version INTEGER NOT NULL DEFAULT 0;
DROP TRIGGER memory_records_fts_insert;
DROP TRIGGER memory_records_fts_delete;
DROP TRIGGER memory_records_fts_update;
DROP TABLE memory_records_fts_vocab;
DROP TABLE memory_records_fts;
CREATE VIRTUAL TABLE memory_records_fts USING fts5(
  title, summary, facts_text, files_text, code_text,
  content='memory_records', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_records_fts_insert AFTER INSERT ON memory_records BEGIN
  INSERT INTO memory_records_fts(rowid, title, summary, facts_text, files_text, code_text)
  VALUES (new.id, new.title, new.summary, new.facts_text, new.files_text, new.code_text);
END;
CREATE TRIGGER memory_records_fts_delete AFTER DELETE ON memory_records BEGIN
  INSERT INTO memory_records_fts(memory_records_fts, rowid, title, summary, facts_text, files_text,
    code_text)
  VALUES ('delete', old.id, old.title, old.summary, old.facts_text, old.files_text, old.code_text);
END;
CREATE TRIGGER memory_records_fts_update
AFTER UPDATE OF title, summary, facts_text, files_text, code_text ON memory_records BEGIN
  INSERT INTO memory_records_fts(memory_records_fts, rowid, title, summary, facts_text, files_text,
    code_text)
  VALUES ('delete', old.id, old.title, old.summary, old.facts_text, old.files_text, old.code_text);
  INSERT INTO memory_records_fts(rowid, title, summary, facts_text, files_text, code_text)
  VALUES (new.id, new.title, new.summary, new.facts_text, new.files_text, new.code_text);
END;
CREATE VIRTUAL TABLE memory_records_fts_vocab USING fts5vocab(memory_records_fts, row);
INSERT INTO memory_records_fts(memory_records_fts) VALUES ('rebuild');`,
  },
  {
    version: 6,
    name: "retrievals_event",
    // "What has this session been shown already?" goes from a session's events to their
    // retrievals: one record is injected once per session, not in every block.
    sql: `CREATE INDEX retrievals_event ON retrievals(event_id);`,
  },
  {
    version: 7,
    name: "forgotten_records",
    // Forget means gone for good: the ids (nothing of the content) of forgotten records, so an
    // import of the same commit or export line does not bring one back.
    sql: `CREATE TABLE forgotten_records (
  record_id TEXT PRIMARY KEY,
  forgotten_at TEXT NOT NULL
) STRICT;`,
  },
  {
    version: 8,
    name: "namespace_moves",
    // A project's rows moved to its new namespace (a path-derived id taken over by the
    // repository's remote-derived one; see `_moves.ts`). The triggers send every later write
    // under a moved namespace (a spooled event, an extraction run that started before the
    // move, an old export) to the new one, whichever code path writes it. Forgotten-record
    // tombstones are keyed by record id alone, so they need nothing here.
    sql: `CREATE TABLE namespace_moves (
  from_namespace TEXT PRIMARY KEY,
  to_namespace TEXT NOT NULL,
  from_project_id TEXT NOT NULL,
  to_project_id TEXT NOT NULL,
  moved_at TEXT NOT NULL
) STRICT;
CREATE INDEX namespace_moves_from_project ON namespace_moves(from_project_id);
CREATE TRIGGER events_moved AFTER INSERT ON events
WHEN new.namespace IN (SELECT from_namespace FROM namespace_moves) BEGIN
  UPDATE events SET
    namespace = (SELECT to_namespace FROM namespace_moves WHERE from_namespace = new.namespace),
    project_id = (SELECT to_project_id FROM namespace_moves WHERE from_namespace = new.namespace)
  WHERE rowid = new.rowid;
END;
CREATE TRIGGER extraction_queue_moved AFTER INSERT ON extraction_queue
WHEN new.namespace IN (SELECT from_namespace FROM namespace_moves) BEGIN
  UPDATE extraction_queue SET
    namespace = (SELECT to_namespace FROM namespace_moves WHERE from_namespace = new.namespace),
    project_id = (SELECT to_project_id FROM namespace_moves WHERE from_namespace = new.namespace)
  WHERE seq = new.seq;
END;
CREATE TRIGGER memory_records_moved AFTER INSERT ON memory_records
WHEN new.namespace IN (SELECT from_namespace FROM namespace_moves) BEGIN
  UPDATE memory_records SET
    namespace = (SELECT to_namespace FROM namespace_moves WHERE from_namespace = new.namespace)
  WHERE id = new.id;
END;
CREATE TRIGGER retrievals_moved AFTER INSERT ON retrievals
WHEN new.namespace IN (SELECT from_namespace FROM namespace_moves) BEGIN
  UPDATE retrievals SET
    namespace = (SELECT to_namespace FROM namespace_moves WHERE from_namespace = new.namespace)
  WHERE id = new.id;
END;
CREATE TRIGGER extraction_runs_moved AFTER INSERT ON extraction_runs
WHEN new.namespace IN (SELECT from_namespace FROM namespace_moves) BEGIN
  UPDATE extraction_runs SET
    namespace = (SELECT to_namespace FROM namespace_moves WHERE from_namespace = new.namespace),
    project_id = (SELECT to_project_id FROM namespace_moves WHERE from_namespace = new.namespace)
  WHERE id = new.id;
END;
CREATE TRIGGER record_merges_moved AFTER INSERT ON record_merges
WHEN new.namespace IN (SELECT from_namespace FROM namespace_moves) BEGIN
  UPDATE record_merges SET
    namespace = (SELECT to_namespace FROM namespace_moves WHERE from_namespace = new.namespace),
    replaced_json = (SELECT json_group_array(json(CASE
        WHEN json_extract(j.value, '$.namespace') = new.namespace
        THEN json_set(j.value, '$.namespace', m.to_namespace) ELSE j.value END))
      FROM json_each(new.replaced_json) j, namespace_moves m
      WHERE m.from_namespace = new.namespace)
  WHERE id = new.id;
END;
CREATE TRIGGER llm_usage_moved AFTER INSERT ON llm_usage
WHEN new.project_id IN (SELECT from_project_id FROM namespace_moves) BEGIN
  INSERT INTO llm_usage (day, project_id, purpose, calls, chars_sent, chars_received)
  SELECT new.day, m.to_project_id, new.purpose, new.calls, new.chars_sent, new.chars_received
  FROM namespace_moves m WHERE m.from_project_id = new.project_id LIMIT 1
  ON CONFLICT(day, project_id, purpose) DO UPDATE SET calls = calls + excluded.calls,
    chars_sent = chars_sent + excluded.chars_sent,
    chars_received = chars_received + excluded.chars_received;
  DELETE FROM llm_usage WHERE rowid = new.rowid;
END;`,
  },
  {
    version: 9,
    name: "team_sync",
    // Team memory (collector/daemon/team): triggers fill an outbox in the same transaction as
    // every record change, so a change is published even if the collector dies right after it,
    // and while PostgreSQL is down. They fire only while team_state.capture is '1' (a team is
    // configured and the change is not one being pulled in). A deleted record's row carries its
    // namespace (forget and merge delete the row first); whether it was forgotten or merged is
    // read from forgotten_records and record_merges when it is published. Pull cursors and the
    // provenance of pulled records live beside them.
    sql: `CREATE TABLE team_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
INSERT INTO team_state (key, value) VALUES ('capture', '0');
CREATE TABLE team_outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  record_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  op TEXT NOT NULL CHECK (op IN ('put', 'gone'))
) STRICT;
CREATE INDEX team_outbox_record ON team_outbox(record_id);
CREATE TABLE team_cursors (project_key TEXT PRIMARY KEY, last_seq INTEGER NOT NULL) STRICT;
CREATE TABLE team_provenance (
  record_id TEXT PRIMARY KEY,
  actor TEXT NOT NULL,
  role TEXT NOT NULL,
  client TEXT NOT NULL,
  changed_by_role TEXT NOT NULL,
  changed_by_client TEXT NOT NULL,
  change_seq INTEGER NOT NULL
) STRICT;
CREATE TRIGGER team_outbox_insert AFTER INSERT ON memory_records
WHEN (SELECT value FROM team_state WHERE key = 'capture') = '1' BEGIN
  INSERT INTO team_outbox (record_id, namespace, op) VALUES (new.record_id, new.namespace, 'put');
END;
CREATE TRIGGER team_outbox_update AFTER UPDATE OF title, summary, facts_json, concepts_json,
  files_touched_json, observation_type ON memory_records
WHEN (SELECT value FROM team_state WHERE key = 'capture') = '1' BEGIN
  INSERT INTO team_outbox (record_id, namespace, op) VALUES (new.record_id, new.namespace, 'put');
END;
CREATE TRIGGER team_outbox_delete AFTER DELETE ON memory_records
WHEN (SELECT value FROM team_state WHERE key = 'capture') = '1' BEGIN
  INSERT INTO team_outbox (record_id, namespace, op) VALUES (old.record_id, old.namespace, 'gone');
END;
CREATE TRIGGER team_provenance_delete AFTER DELETE ON memory_records BEGIN
  DELETE FROM team_provenance WHERE record_id = old.record_id;
END;`,
  },
  {
    version: 10,
    name: "term_spaces",
    // Each namespace's term space (core/search/record_space.ts), trained in the background from
    // its records and kept so a restart does not retrain; version is the space's format and
    // training recipe (another one is retrained), record_count what it was trained on (the
    // collector retrains once the namespace has grown well past it).
    sql: `CREATE TABLE term_spaces (
  namespace TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  record_count INTEGER NOT NULL,
  trained_at TEXT NOT NULL,
  data BLOB NOT NULL
) STRICT;`,
  },
  {
    version: 11,
    name: "embedding_queue_indexes",
    // What the embedding backfill takes next, without scanning every record: records with no
    // vector, and records whose vector is of another model (or input version), each in the
    // order it takes them. Without them every batch scanned and sorted the whole table on the
    // thread that serves ingest (44-53 ms per batch at 100k records).
    sql: `CREATE INDEX memory_records_unembedded ON memory_records(embed_failures, created_at)
  WHERE embedding IS NULL;
CREATE INDEX memory_records_embedding_model
  ON memory_records(embedding_model, embed_failures, created_at) WHERE embedding IS NOT NULL;`,
  },
  {
    version: 12,
    name: "commit_record_ids",
    // Commit records take the identity rule's ids (core/project/record_identity.ts: the
    // namespace's project and the sha, no longer the repository's root commits); a second copy
    // of one commit in one project goes. See `_record_ids.ts`.
    sql: "-- data step only: rekeyCommitRecords (core/storage/_record_ids.ts)",
    data: (db) => void rekeyCommitRecords(db),
  },
  {
    version: 13,
    name: "records_namespace_title",
    // A heuristic extraction's commit skips a record identical to one stored in its namespace
    // (`commitExtraction`, skipIdentical). Without this index each record scanned the whole
    // namespace, inside the write transaction on the collector's thread: 3.3 s for a chunk of
    // 50 at 20k records, as a team pull grows a project's namespace (4 ms with it).
    sql: "CREATE INDEX memory_records_namespace_title ON memory_records(namespace, title);",
  },
];

/** The recorded history disagrees with the migrations this build knows. */
export class MigrationDriftError extends Error {
  /** Creates the error with a message that says what differs and what to do. */
  constructor(message: string) {
    super(message);
    this.name = "MigrationDriftError";
  }
}

/** Checksum of a migration's SQL, recorded when it is applied. */
export function migrationChecksum(migration: Migration): string {
  return createHash("sha256").update(migration.sql).digest("hex");
}

/**
 * Applies every pending migration, each in its own transaction, after checking the recorded
 * history against `migrations`. Returns the versions applied by this call.
 */
export function migrate(
  db: DatabaseSync,
  migrations: readonly Migration[] = MIGRATIONS,
): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const applied = db.prepare(
    "SELECT version, name, checksum FROM schema_migrations ORDER BY version",
  )
    .all() as { version: number; name: string; checksum: string }[];
  for (const row of applied) {
    const known = migrations.find((m) => m.version === row.version);
    if (!known) {
      throw new MigrationDriftError(
        `database has migration ${row.version} (${row.name}) that this kiro-learn does not know: ` +
          `it was written by a newer version. Upgrade kiro-learn, or move the database aside.`,
      );
    }
    if (known.name !== row.name || migrationChecksum(known) !== row.checksum) {
      throw new MigrationDriftError(
        `migration ${row.version} was applied as "${row.name}" with different SQL than this ` +
          `build's "${known.name}": the schema has drifted. Restore the matching kiro-learn ` +
          `version or move the database aside.`,
      );
    }
  }
  const done = new Set(applied.map((r) => r.version));
  const insert = db.prepare(
    "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
  );
  const ran: number[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec(migration.sql);
      migration.data?.(db);
      insert.run(
        migration.version,
        migration.name,
        migrationChecksum(migration),
        new Date().toISOString(),
      );
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
    ran.push(migration.version);
  }
  return ran;
}
