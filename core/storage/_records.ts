/**
 * Memory records: insert (with their derived search text), read, edit, delete, forget for good,
 * list.
 *
 * @module
 */
import { type MemoryRecord, MemoryRecordSchema } from "../schemas/mod.ts";
import { SEARCH_TEXT_VERSION } from "../search/mod.ts";
import { plainTitle } from "../terminal.ts";
import { encodeEmbedding } from "./embedding_blob.ts";
import {
  DuplicateRecordError,
  ForgottenRecordError,
  type RecordFilter,
  type StoredEmbedding,
} from "./types.ts";
import { RECORD_COLUMNS, recordFromRow, type Row, whereClause } from "./_rows.ts";
import { searchText } from "./_search_text.ts";
import type { Connection } from "./_connection.ts";

/** Inserts one record with its derived search text (inside the caller's transaction). */
export function insertRecord(
  c: Connection,
  record: MemoryRecord,
  embedding?: StoredEmbedding | null,
): void {
  const text = searchText(record);
  if (c.stmt("SELECT 1 FROM forgotten_records WHERE record_id = ?").get(record.record_id)) {
    throw new ForgottenRecordError(record.record_id);
  }
  try {
    c.stmt(
      `INSERT INTO memory_records (record_id, namespace, strategy, title, summary, facts_json,
        facts_text, concepts_json, files_touched_json, observation_type, source_event_ids_json,
        created_at, embedding, embedding_model, embedding_dim, files_text, code_text,
        search_version)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      record.record_id,
      record.namespace,
      record.strategy,
      // Extraction builds records without the schema: the title is made plain here too.
      plainTitle(record.title),
      record.summary,
      JSON.stringify(record.facts),
      record.facts.join(" "),
      JSON.stringify(record.concepts),
      JSON.stringify(record.files_touched),
      record.observation_type,
      JSON.stringify(record.source_event_ids),
      record.created_at,
      embedding ? encodeEmbedding(embedding.vector) : null,
      embedding?.model ?? null,
      embedding?.vector.length ?? null,
      text.files,
      text.code,
      SEARCH_TEXT_VERSION,
    );
  } catch (error) {
    if (String(error).includes("UNIQUE constraint failed: memory_records.record_id")) {
      throw new DuplicateRecordError(record.record_id);
    }
    throw error;
  }
}

/** See `Storage.putRecord`. */
export async function putRecord(
  c: Connection,
  record: MemoryRecord,
  options: { embedding?: StoredEmbedding | null } = {},
): Promise<void> {
  await Promise.resolve();
  c.transaction(() => insertRecord(c, record, options.embedding));
}

/** See `Storage.getRecords`. */
export async function getRecords(
  c: Connection,
  ids: readonly string[],
): Promise<MemoryRecord[]> {
  await Promise.resolve();
  return getRecordsSync(c, ids);
}

/** Full records by id, in the order asked, missing ids skipped. */
export function getRecordsSync(
  c: Connection,
  ids: readonly string[],
): MemoryRecord[] {
  const stmt = c.stmt(`SELECT ${RECORD_COLUMNS} FROM memory_records WHERE record_id = ?`);
  const out: MemoryRecord[] = [];
  for (const id of ids) {
    const row = stmt.get(id) as Row | undefined;
    if (row) out.push(recordFromRow(row));
  }
  return out;
}

/** See `Storage.updateRecord`. */
export async function updateRecord(
  c: Connection,
  recordId: string,
  patch: Partial<Pick<MemoryRecord, "title" | "summary" | "facts" | "concepts">>,
): Promise<MemoryRecord | null> {
  await Promise.resolve();
  const [current] = getRecordsSync(c, [recordId]);
  if (!current) return null;
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const next = MemoryRecordSchema.parse({ ...current, ...defined });
  const textChanged = next.title !== current.title || next.summary !== current.summary ||
    JSON.stringify(next.facts) !== JSON.stringify(current.facts) ||
    JSON.stringify(next.concepts) !== JSON.stringify(current.concepts);
  c.transaction(() => writeRecordContent(c, next, { textChanged }));
  return next;
}

/**
 * Writes a record's content and its derived search text over the stored row with its id (inside
 * the caller's transaction). Changed text drops the embedding, so the backfill embeds it again.
 */
export function writeRecordContent(
  c: Connection,
  next: MemoryRecord,
  options: { textChanged: boolean },
): void {
  const text = searchText(next);
  const drop = options.textChanged ? 1 : 0;
  c.stmt(
    `UPDATE memory_records SET title = ?, summary = ?, facts_json = ?, facts_text = ?,
      concepts_json = ?, files_touched_json = ?, observation_type = ?, updated_at = ?,
      files_text = ?, code_text = ?, search_version = ?,
      embedding = CASE WHEN ? THEN NULL ELSE embedding END,
      embedding_model = CASE WHEN ? THEN NULL ELSE embedding_model END,
      embed_failures = CASE WHEN ? THEN 0 ELSE embed_failures END
    WHERE record_id = ?`,
  ).run(
    next.title,
    next.summary,
    JSON.stringify(next.facts),
    next.facts.join(" "),
    JSON.stringify(next.concepts),
    JSON.stringify(next.files_touched),
    next.observation_type,
    new Date().toISOString(),
    text.files,
    text.code,
    SEARCH_TEXT_VERSION,
    drop,
    drop,
    drop,
    next.record_id,
  );
}

/** See `Storage.deleteRecords`. */
export async function deleteRecords(
  c: Connection,
  ids: readonly string[],
): Promise<number> {
  await Promise.resolve();
  return c.transaction(() => deleteRecordsSync(c, ids));
}

function deleteRecordsSync(c: Connection, ids: readonly string[]): number {
  const del = c.stmt("DELETE FROM memory_records WHERE record_id = ?");
  const history = c.stmt("DELETE FROM record_merges WHERE summary_id = ?");
  let n = 0;
  for (const id of ids) {
    n += Number(del.run(id).changes);
    history.run(id);
  }
  return n;
}

/** See `Storage.forgetRecords`. */
export async function forgetRecords(
  c: Connection,
  ids: readonly string[],
  options: { withSources?: boolean } = {},
): Promise<{ records: number; events: number }> {
  await Promise.resolve();
  const sources = options.withSources
    ? getRecordsSync(c, ids).flatMap((r) => r.source_event_ids)
    : [];
  // The ids stay as tombstones (no content): an import must not bring a forgotten record back.
  const records = c.transaction(() => {
    // A namespace's term space was learned from these records too: it goes with them (the
    // collector trains a new one without them).
    const spaces = c.stmt(
      `DELETE FROM term_spaces WHERE namespace IN
      (SELECT namespace FROM memory_records WHERE record_id = ?)`,
    );
    for (const id of ids) spaces.run(id);
    const tomb = c.stmt(
      "INSERT OR IGNORE INTO forgotten_records (record_id, forgotten_at) VALUES (?, ?)",
    );
    const now = new Date().toISOString();
    let n = 0;
    for (const id of ids) {
      const gone = deleteRecordsSync(c, [id]);
      // Only a record that was here gets a tombstone: forgetting an id this machine does not hold
      // (mistyped, or not imported yet) is answered "not found", so it must change nothing, or
      // the import that brings that record later would refuse it as forgotten.
      if (gone > 0) tomb.run(id, now);
      n += gone;
    }
    return n;
  });
  let events = 0;
  if (sources.length > 0) {
    // An event's content has copies beside its row: the retrieval its prompt asked for keeps the
    // prompt as its query (the injections page and GET /v1/retrievals show it), and a queue entry
    // not yet extracted keeps the body. Forget means every copy.
    events = c.transaction(() => {
      const del = c.stmt("DELETE FROM events WHERE event_id = ?");
      const retrievals = c.stmt("DELETE FROM retrievals WHERE event_id = ?");
      const queued = c.stmt(
        `DELETE FROM extraction_queue WHERE EXISTS
        (SELECT 1 FROM json_each(extraction_queue.source_event_ids_json) WHERE value = ?)`,
      );
      let n = 0;
      for (const id of new Set(sources)) {
        n += Number(del.run(id).changes);
        retrievals.run(id);
        queued.run(id);
      }
      return n;
    });
  }
  scrubDeleted(c);
  return { records, events };
}

/**
 * Leaves no byte of deleted records behind. Deleted rows are zeroed in the file (secure_delete);
 * the full-text index still holds their words in older segments until they merge, and the WAL
 * holds old page images until a checkpoint. Forget is rare and asked for: merge and checkpoint
 * now.
 */
export function scrubDeleted(c: Connection): void {
  c.db.exec("INSERT INTO memory_records_fts(memory_records_fts) VALUES ('optimize')");
  c.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

/** See `Storage.listRecords`. */
export async function listRecords(
  c: Connection,
  filter: RecordFilter,
): Promise<{ items: MemoryRecord[]; total: number }> {
  await Promise.resolve();
  const { clause, params } = whereClause([
    ["namespace = ?", filter.namespace],
    ["observation_type = ?", filter.observation_type],
    ["strategy = ?", filter.strategy],
    ["created_at >= ?", filter.since],
  ]);
  const rows = c.stmt(
    `SELECT ${RECORD_COLUMNS} FROM memory_records ${clause}
    ORDER BY created_at DESC, record_id DESC LIMIT ? OFFSET ?`,
  ).all(...params, filter.limit, filter.offset) as Row[];
  const total = c.stmt(`SELECT count(*) AS n FROM memory_records ${clause}`)
    .get(...params) as { n: number };
  return { items: rows.map(recordFromRow), total: total.n };
}

/** See `Storage.recentRecords`. */
export async function recentRecords(
  c: Connection,
  namespace: string,
  options: { limit: number; types?: string[] },
): Promise<MemoryRecord[]> {
  await Promise.resolve();
  const types = options.types ?? [];
  const typeClause = types.length > 0
    ? `AND observation_type IN (${types.map(() => "?").join(", ")})`
    : "";
  return (c.stmt(
    `SELECT ${RECORD_COLUMNS} FROM memory_records WHERE namespace = ? ${typeClause}
    ORDER BY created_at DESC, record_id DESC LIMIT ?`,
  ).all(namespace, ...types, options.limit) as Row[]).map(recordFromRow);
}
