/**
 * The SQLite backend of `Storage`, on `node:sqlite` (built into Deno: no FFI, nothing fetched).
 *
 * One connection, used from one thread: SQLite calls are synchronous, so each method below is
 * one transaction that nothing else can interleave with. Methods are `async` only to honour the
 * backend-neutral interface.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import {
  type Event,
  type MemoryRecord,
  MemoryRecordSchema,
  type QueueEntry,
} from "../schemas/mod.ts";
import {
  buildFtsQuery,
  codeParts,
  escapeLike,
  filesText,
  type LexicalCandidates,
  planLexicalSearch,
  queryTokens,
  SEARCH_TEXT_VERSION,
  selectQueryTerms,
  type WeightedTerm,
} from "../search/mod.ts";
import type { TermStats } from "../search/mod.ts";
import { decodeEmbedding, encodeEmbedding } from "./embedding_blob.ts";
import { migrate } from "./migrations.ts";
import {
  DuplicateRecordError,
  type ExtractionRun,
  type LlmUsage,
  type MergeRow,
  type NewQueueEntry,
  type ProjectSummary,
  type QueueDepth,
  type ReconciliationCommit,
  type RecordFilter,
  type RecordWithEmbedding,
  type RetrievalLog,
  type RetrievalRow,
  type ScoredRecord,
  StaleCommitError,
  type Stats,
  type Storage,
  type StoredEmbedding,
} from "./types.ts";

/** Options for opening the database. */
export interface SqliteStorageOptions {
  /** Home directory, to show project paths as `~/...`. */
  home?: string;
  /** Busy timeout in milliseconds (other processes holding the write lock). */
  busyTimeoutMs?: number;
}

const encoder = new TextEncoder();

type Row = Record<string, unknown>;

/** BM25 column weights: title, summary, facts, changed paths, identifier parts. */
const BM25_WEIGHTS = "3.0, 1.0, 1.0, 3.0, 1.0";

/** Opens (creating and migrating if needed) a SQLite database at `path`. */
export function openSqliteStorage(path: string, options: SqliteStorageOptions = {}): SqliteStorage {
  if (path !== ":memory:") ensurePrivateFile(path);
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)};
      PRAGMA foreign_keys = ON;
      PRAGMA temp_store = MEMORY;
      PRAGMA secure_delete = ON;`);
    migrate(db);
    deriveSearchText(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return new SqliteStorage(db, options);
}

/** The derived, indexed search text of a record (see `core/search/code_text.ts`). */
function searchText(record: Pick<MemoryRecord, "title" | "summary" | "facts" | "files_touched">): {
  files: string;
  code: string;
} {
  return {
    files: filesText(record.files_touched),
    code: codeParts(
      `${record.title}\n${record.summary}\n${record.facts.join("\n")}\n${
        record.files_touched.join("\n")
      }`,
    ),
  };
}

/**
 * Re-derives the search text of rows written by an older version (or before the columns
 * existed), in batches of one transaction each; the update trigger re-indexes them.
 */
function deriveSearchText(db: DatabaseSync): void {
  const select = db.prepare(
    `SELECT id, title, summary, facts_json, files_touched_json FROM memory_records
    WHERE search_version < ? LIMIT 500`,
  );
  const update = db.prepare(
    "UPDATE memory_records SET files_text = ?, code_text = ?, search_version = ? WHERE id = ?",
  );
  for (;;) {
    const rows = select.all(SEARCH_TEXT_VERSION) as {
      id: number;
      title: string;
      summary: string;
      facts_json: string;
      files_touched_json: string;
    }[];
    if (rows.length === 0) return;
    db.exec("BEGIN IMMEDIATE");
    try {
      for (const row of rows) {
        const text = searchText({
          title: row.title,
          summary: row.summary,
          facts: JSON.parse(row.facts_json),
          files_touched: JSON.parse(row.files_touched_json),
        });
        update.run(text.files, text.code, SEARCH_TEXT_VERSION, row.id);
      }
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
}

// SQLite creates the -wal and -shm files with the database file's mode, so a 0600 database keeps
// every memory private to its owner whatever the umask.
function ensurePrivateFile(path: string): void {
  try {
    Deno.openSync(path, { create: true, write: true, mode: 0o600 }).close();
    if (Deno.build.os !== "windows") Deno.chmodSync(path, 0o600);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
  }
}

/** `Storage` on one SQLite connection. */
export class SqliteStorage implements Storage {
  #db: DatabaseSync;
  #home?: string;
  #statements = new Map<string, StatementSync>();
  #closed = false;
  // Document frequencies drift slowly; a short-lived cache keeps fts5vocab lookups (which cost
  // time in proportion to a term's postings) off the hot path for the words people reuse.
  #dfCache = new Map<string, { df: number; at: number; corpus: number }>();

  /** Wraps an open, migrated connection. Use `openSqliteStorage`. */
  constructor(db: DatabaseSync, options: SqliteStorageOptions = {}) {
    this.#db = db;
    this.#home = options.home;
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms USING fts5(
        t, tokenize='porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms_vocab
        USING fts5vocab(temp, query_terms, instance);`);
  }

  /** The raw connection, for tests and benchmarks that need to look underneath. */
  get db(): DatabaseSync {
    return this.#db;
  }

  #stmt(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #transaction<T>(fn: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = fn();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  // ---- events -------------------------------------------------------------------------------

  /** See `Storage.ingestEvent`. */
  async ingestEvent(
    event: Event,
    options: { project_id: string; enqueue: boolean },
  ): Promise<boolean> {
    const [stored] = await this.ingestEvents([{ event, ...options }]);
    return stored;
  }

  /** See `Storage.ingestEvents`. */
  async ingestEvents(
    items: readonly { event: Event; project_id: string; enqueue: boolean }[],
  ): Promise<boolean[]> {
    await Promise.resolve();
    return this.#transaction(() => items.map((item) => this.#insertEvent(item)));
  }

  #insertEvent(item: { event: Event; project_id: string; enqueue: boolean }): boolean {
    const { event } = item;
    const bodyJson = JSON.stringify(event.body);
    const result = this.#stmt(
      `INSERT INTO events (event_id, parent_event_id, session_id, actor_id, namespace, project_id,
        schema_version, kind, body_json, valid_time, transaction_time, source_json, surface,
        project_path, content_hash)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(event_id) DO NOTHING`,
    ).run(
      event.event_id,
      event.parent_event_id ?? null,
      event.session_id,
      event.actor_id,
      event.namespace,
      item.project_id,
      event.schema_version,
      event.kind,
      bodyJson,
      event.valid_time,
      new Date().toISOString(),
      JSON.stringify(event.source),
      event.source.surface,
      event.source.project_path ?? null,
      event.content_hash ?? null,
    );
    if (result.changes === 0) return false;
    if (item.enqueue) {
      this.#insertQueueRow({
        project_id: item.project_id,
        namespace: event.namespace,
        kind: event.kind,
        body: event.body,
        timestamp: event.valid_time,
        surface: event.source.surface,
        source_event_ids: [event.event_id],
        compacted: false,
      }, bodyJson);
    }
    return true;
  }

  #insertQueueRow(entry: NewQueueEntry, bodyJson = JSON.stringify(entry.body)): number {
    const result = this.#stmt(
      `INSERT INTO extraction_queue (project_id, namespace, kind, body_json, timestamp, surface,
        source_event_ids_json, compacted, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      entry.project_id,
      entry.namespace,
      entry.kind,
      bodyJson,
      entry.timestamp,
      entry.surface,
      JSON.stringify(entry.source_event_ids),
      entry.compacted ? 1 : 0,
      encoder.encode(bodyJson).byteLength,
    );
    return Number(result.lastInsertRowid);
  }

  /** See `Storage.getEvents`. */
  async getEvents(ids: readonly string[]): Promise<Event[]> {
    await Promise.resolve();
    const out: Event[] = [];
    const stmt = this.#stmt("SELECT * FROM events WHERE event_id = ?");
    for (const id of ids) {
      const row = stmt.get(id) as Row | undefined;
      if (row) out.push(eventFromRow(row));
    }
    return out;
  }

  /** See `Storage.listEvents`. */
  async listEvents(
    options: { namespace?: string; limit: number; offset?: number },
  ): Promise<{ items: Event[]; total: number }> {
    await Promise.resolve();
    const offset = options.offset ?? 0;
    if (options.namespace !== undefined) {
      const rows = this.#stmt(
        `SELECT * FROM events WHERE namespace = ? ORDER BY valid_time DESC, event_id DESC
        LIMIT ? OFFSET ?`,
      ).all(options.namespace, options.limit, offset) as Row[];
      const total = this.#stmt("SELECT count(*) AS n FROM events WHERE namespace = ?")
        .get(options.namespace) as { n: number };
      return { items: rows.map(eventFromRow), total: total.n };
    }
    const rows = this.#stmt(
      "SELECT * FROM events ORDER BY valid_time DESC, event_id DESC LIMIT ? OFFSET ?",
    ).all(options.limit, offset) as Row[];
    const total = this.#stmt("SELECT count(*) AS n FROM events").get() as { n: number };
    return { items: rows.map(eventFromRow), total: total.n };
  }

  // ---- queue --------------------------------------------------------------------------------

  /** See `Storage.queueDepths`. */
  async queueDepths(): Promise<QueueDepth[]> {
    await Promise.resolve();
    return this.#stmt(
      `SELECT project_id, min(namespace) AS namespace, count(*) AS rows, sum(bytes) AS bytes
      FROM extraction_queue GROUP BY project_id ORDER BY project_id`,
    ).all() as unknown as QueueDepth[];
  }

  /** See `Storage.snapshotQueue`. */
  async snapshotQueue(
    projectId: string,
    options: { maxSeq?: number; limit?: number } = {},
  ): Promise<QueueEntry[]> {
    await Promise.resolve();
    const rows = this.#stmt(
      `SELECT * FROM extraction_queue WHERE project_id = ? AND seq <= ? ORDER BY seq LIMIT ?`,
    ).all(projectId, options.maxSeq ?? Number.MAX_SAFE_INTEGER, options.limit ?? -1) as Row[];
    return rows.map(queueEntryFromRow);
  }

  /** See `Storage.commitExtraction`. */
  async commitExtraction(
    options: { consumedSeqs: readonly number[]; records: RecordWithEmbedding[] },
  ): Promise<void> {
    await Promise.resolve();
    this.#transaction(() => {
      for (const { record, embedding } of options.records) this.#insertRecord(record, embedding);
      const del = this.#stmt("DELETE FROM extraction_queue WHERE seq = ?");
      for (const seq of options.consumedSeqs) del.run(seq);
    });
  }

  /** See `Storage.commitReconciliation`. */
  async commitReconciliation(commit: ReconciliationCommit): Promise<void> {
    await Promise.resolve();
    this.#transaction(() => {
      const missingRecords: string[] = [];
      // A record edited while the judge was deciding is not the record the judge merged: treat
      // it as gone, so the merge is abandoned rather than the edit silently lost.
      const current = this.#stmt(
        "SELECT title, summary, facts_json, concepts_json FROM memory_records WHERE record_id = ?",
      );
      for (const merge of commit.merges) {
        for (const seen of merge.replaced) {
          const row = current.get(seen.record_id) as Row | undefined;
          if (
            row && (row.title !== seen.title || row.summary !== seen.summary ||
              row.facts_json !== JSON.stringify(seen.facts) ||
              row.concepts_json !== JSON.stringify(seen.concepts))
          ) {
            missingRecords.push(seen.record_id);
          }
        }
      }
      if (missingRecords.length > 0) {
        throw new StaleCommitError({ records: missingRecords, seqs: [] });
      }
      const delRecord = this.#stmt("DELETE FROM memory_records WHERE record_id = ?");
      for (const id of new Set(commit.deleteIds)) {
        if (Number(delRecord.run(id).changes) === 0) missingRecords.push(id);
      }
      const delSeq = this.#stmt("DELETE FROM extraction_queue WHERE seq = ?");
      const missingSeqs: number[] = [];
      for (const seq of new Set(commit.consumedSeqs)) {
        if (Number(delSeq.run(seq).changes) === 0) missingSeqs.push(seq);
      }
      if (missingRecords.length > 0 || missingSeqs.length > 0) {
        throw new StaleCommitError({ records: missingRecords, seqs: missingSeqs });
      }
      for (const { record, embedding } of commit.put) this.#insertRecord(record, embedding);
      const merged = this.#stmt(
        `INSERT INTO record_merges (summary_id, namespace, replaced_ids_json, replaced_json,
          merged_at) VALUES (?, ?, ?, ?, ?)`,
      );
      const now = new Date().toISOString();
      for (const merge of commit.merges) {
        const summary = commit.put.find((p) => p.record.record_id === merge.summary_id);
        if (!summary) throw new Error(`merge summary ${merge.summary_id} is not in the commit`);
        merged.run(
          merge.summary_id,
          summary.record.namespace,
          JSON.stringify(merge.replaced.map((r) => r.record_id)),
          JSON.stringify(merge.replaced),
          now,
        );
      }
    });
  }

  /** See `Storage.listMerges`. */
  async listMerges(
    options: { namespace?: string; summary_id?: string; limit: number },
  ): Promise<MergeRow[]> {
    await Promise.resolve();
    const { clause, params } = whereClause([
      ["namespace = ?", options.namespace],
      ["summary_id = ?", options.summary_id],
    ]);
    const rows = this.#stmt(`SELECT * FROM record_merges ${clause} ORDER BY id DESC LIMIT ?`)
      .all(...params, options.limit) as Row[];
    return rows.map((row) => ({
      id: row.id as number,
      summary_id: row.summary_id as string,
      namespace: row.namespace as string,
      replaced_ids: JSON.parse(row.replaced_ids_json as string),
      replaced: JSON.parse(row.replaced_json as string),
      merged_at: row.merged_at as string,
    }));
  }

  /** See `Storage.replaceQueueRows`. */
  async replaceQueueRows(
    options: { removeSeqs: readonly number[]; entries: NewQueueEntry[] },
  ): Promise<number[]> {
    await Promise.resolve();
    return this.#transaction(() => {
      const del = this.#stmt("DELETE FROM extraction_queue WHERE seq = ?");
      let removed = 0;
      for (const seq of options.removeSeqs) removed += Number(del.run(seq).changes);
      if (removed !== options.removeSeqs.length) {
        // Another run consumed some rows meanwhile: replacing would resurrect them.
        throw new Error("queue rows changed during compaction; nothing was replaced");
      }
      return options.entries.map((entry) => this.#insertQueueRow(entry));
    });
  }

  // ---- records ------------------------------------------------------------------------------

  #insertRecord(record: MemoryRecord, embedding?: StoredEmbedding | null): void {
    const text = searchText(record);
    try {
      this.#stmt(
        `INSERT INTO memory_records (record_id, namespace, strategy, title, summary, facts_json,
          facts_text, concepts_json, files_touched_json, observation_type, source_event_ids_json,
          created_at, embedding, embedding_model, embedding_dim, files_text, code_text,
          search_version)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        record.record_id,
        record.namespace,
        record.strategy,
        record.title,
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
  async putRecord(
    record: MemoryRecord,
    options: { embedding?: StoredEmbedding | null } = {},
  ): Promise<void> {
    await Promise.resolve();
    this.#transaction(() => this.#insertRecord(record, options.embedding));
  }

  /** See `Storage.getRecords`. */
  async getRecords(ids: readonly string[]): Promise<MemoryRecord[]> {
    await Promise.resolve();
    return this.#getRecordsSync(ids);
  }

  #getRecordsSync(ids: readonly string[]): MemoryRecord[] {
    const stmt = this.#stmt(`SELECT ${RECORD_COLUMNS} FROM memory_records WHERE record_id = ?`);
    const out: MemoryRecord[] = [];
    for (const id of ids) {
      const row = stmt.get(id) as Row | undefined;
      if (row) out.push(recordFromRow(row));
    }
    return out;
  }

  /** See `Storage.updateRecord`. */
  async updateRecord(
    recordId: string,
    patch: Partial<Pick<MemoryRecord, "title" | "summary" | "facts" | "concepts">>,
  ): Promise<MemoryRecord | null> {
    await Promise.resolve();
    const [current] = this.#getRecordsSync([recordId]);
    if (!current) return null;
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const next = MemoryRecordSchema.parse({ ...current, ...defined });
    const textChanged = next.title !== current.title || next.summary !== current.summary ||
      JSON.stringify(next.facts) !== JSON.stringify(current.facts) ||
      JSON.stringify(next.concepts) !== JSON.stringify(current.concepts);
    this.#transaction(() => {
      this.#stmt(
        `UPDATE memory_records SET title = ?, summary = ?, facts_json = ?, facts_text = ?,
          concepts_json = ?, updated_at = ?, files_text = ?, code_text = ?, search_version = ?,
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
        new Date().toISOString(),
        searchText(next).files,
        searchText(next).code,
        SEARCH_TEXT_VERSION,
        textChanged ? 1 : 0,
        textChanged ? 1 : 0,
        textChanged ? 1 : 0,
        recordId,
      );
    });
    return next;
  }

  /** See `Storage.deleteRecords`. */
  async deleteRecords(ids: readonly string[]): Promise<number> {
    await Promise.resolve();
    return this.#transaction(() => {
      const del = this.#stmt("DELETE FROM memory_records WHERE record_id = ?");
      const history = this.#stmt("DELETE FROM record_merges WHERE summary_id = ?");
      let n = 0;
      for (const id of ids) {
        n += Number(del.run(id).changes);
        history.run(id);
      }
      return n;
    });
  }

  /** See `Storage.forgetRecords`. */
  async forgetRecords(
    ids: readonly string[],
    options: { withSources?: boolean } = {},
  ): Promise<{ records: number; events: number }> {
    await Promise.resolve();
    const sources = options.withSources
      ? this.#getRecordsSync(ids).flatMap((r) => r.source_event_ids)
      : [];
    const records = await this.deleteRecords(ids);
    let events = 0;
    if (sources.length > 0) {
      events = this.#transaction(() => {
        const del = this.#stmt("DELETE FROM events WHERE event_id = ?");
        let n = 0;
        for (const id of new Set(sources)) n += Number(del.run(id).changes);
        return n;
      });
    }
    // Deleted rows are zeroed in the file (secure_delete); the full-text index still holds the
    // words in older segments until they merge, and the WAL holds old page images until a
    // checkpoint. Forget is rare and asked for: merge and checkpoint now, so no byte is left.
    this.#db.exec("INSERT INTO memory_records_fts(memory_records_fts) VALUES ('optimize')");
    this.#db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return { records, events };
  }

  /** See `Storage.listRecords`. */
  async listRecords(filter: RecordFilter): Promise<{ items: MemoryRecord[]; total: number }> {
    await Promise.resolve();
    const { clause, params } = whereClause([
      ["namespace = ?", filter.namespace],
      ["observation_type = ?", filter.observation_type],
      ["strategy = ?", filter.strategy],
      ["created_at >= ?", filter.since],
    ]);
    const rows = this.#stmt(
      `SELECT ${RECORD_COLUMNS} FROM memory_records ${clause}
      ORDER BY created_at DESC, record_id DESC LIMIT ? OFFSET ?`,
    ).all(...params, filter.limit, filter.offset) as Row[];
    const total = this.#stmt(`SELECT count(*) AS n FROM memory_records ${clause}`)
      .get(...params) as { n: number };
    return { items: rows.map(recordFromRow), total: total.n };
  }

  /** See `Storage.recentRecords`. */
  async recentRecords(
    namespace: string,
    options: { limit: number; types?: string[] },
  ): Promise<MemoryRecord[]> {
    await Promise.resolve();
    const types = options.types ?? [];
    const typeClause = types.length > 0
      ? `AND observation_type IN (${types.map(() => "?").join(", ")})`
      : "";
    return (this.#stmt(
      `SELECT ${RECORD_COLUMNS} FROM memory_records WHERE namespace = ? ${typeClause}
      ORDER BY created_at DESC, record_id DESC LIMIT ?`,
    ).all(namespace, ...types, options.limit) as Row[]).map(recordFromRow);
  }

  // ---- search -------------------------------------------------------------------------------

  /** Stems and document frequencies of query tokens, from the index's own tokenizer. */
  termStats(tokens: readonly string[], options: { corpusSize?: number } = {}): TermStats[] {
    const insert = this.#stmt("INSERT INTO temp.query_terms(rowid, t) VALUES (?, ?)");
    const stems: string[][] = tokens.map(() => []);
    try {
      tokens.forEach((token, i) => insert.run(i + 1, token));
      const rows = this.#stmt(
        "SELECT term, doc FROM temp.query_terms_vocab ORDER BY doc, offset",
      ).all() as { term: string; doc: number }[];
      for (const row of rows) stems[row.doc - 1].push(row.term);
    } finally {
      this.#stmt("DELETE FROM temp.query_terms").run();
    }
    return tokens.map((token, i) => {
      let min = Number.POSITIVE_INFINITY;
      for (const stem of stems[i]) {
        min = Math.min(min, this.#documentFrequency(stem, options.corpusSize ?? 0));
      }
      return { token, stems: stems[i], df: Number.isFinite(min) ? min : 0 };
    });
  }

  #documentFrequency(stem: string, corpus: number): number {
    const now = Date.now();
    const cached = this.#dfCache.get(stem);
    // A cached figure is kept while it is recent AND the corpus has not grown or shrunk by more
    // than a quarter since (a bulk import would otherwise make every term look rare).
    if (
      cached && now - cached.at < DF_CACHE_TTL_MS && corpus <= cached.corpus * 1.25 + 100 &&
      corpus >= cached.corpus * 0.75 - 100
    ) {
      return cached.df;
    }
    const row = this.#stmt("SELECT doc FROM memory_records_fts_vocab WHERE term = ?").get(stem) as
      | { doc: number }
      | undefined;
    if (this.#dfCache.size >= DF_CACHE_MAX) this.#dfCache.clear();
    this.#dfCache.set(stem, { df: row?.doc ?? 0, at: now, corpus });
    return row?.doc ?? 0;
  }

  /** See `Storage.searchLexical`. */
  async searchLexical(
    namespace: string,
    query: string,
    options: { limit: number },
  ): Promise<ScoredRecord[]> {
    await Promise.resolve();
    return this.searchLexicalSync(namespace, query, options);
  }

  /** Synchronous lexical search (the retrieval benchmark measures this). */
  searchLexicalSync(namespace: string, query: string, options: { limit: number }): ScoredRecord[] {
    return this.searchCandidatesSync(namespace, query, options).candidates.map((c) => ({
      record: c.record,
      score: c.bm25,
    }));
  }

  /** See `Storage.searchCandidates`. */
  async searchCandidates(
    namespace: string,
    query: string,
    options: { limit: number },
  ): Promise<LexicalCandidates> {
    await Promise.resolve();
    return this.searchCandidatesSync(namespace, query, options);
  }

  /**
   * BM25 candidates with their per-column scores, and the query's terms with their IDF (what
   * the reranker needs). Rare terms are searched first, within a postings budget.
   */
  searchCandidatesSync(
    namespace: string,
    query: string,
    options: { limit: number },
  ): LexicalCandidates {
    const tokens = queryTokens(query);
    let corpus = 0;
    if (tokens.length === 0) return { candidates: [], terms: [], corpus };
    let terms: string[];
    let weighted: WeightedTerm[] = [];
    let minId = 0;
    try {
      // max(id) is O(1) and close enough to the row count for IDF (deletes leave small gaps).
      const { top } = this.#stmt("SELECT coalesce(max(id), 0) AS top FROM memory_records")
        .get() as { top: number };
      const totalDocs = top;
      corpus = totalDocs;
      if (totalDocs === 0) return { candidates: [], terms: [], corpus };
      const stats = this.termStats(tokens, { corpusSize: totalDocs });
      weighted = stats
        .filter((t) => t.stems.length > 0 && !t.token.includes(" "))
        .map((t) => ({ term: t.token, idf: Math.log((totalDocs + 1) / (t.df + 1)) }));
      const selected = new Set(selectQueryTerms(stats, { totalDocs }));
      const plan = planLexicalSearch(stats.filter((t) => selected.has(t.token)), { totalDocs });
      terms = plan.terms;
      if (plan.window < 1) {
        // The window is this namespace's newest rows, never the database's: a small or older
        // project must not vanish because another one is large.
        const rows = Math.ceil(totalDocs * plan.window);
        const edge = this.#stmt(
          "SELECT id FROM memory_records WHERE namespace = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
        ).get(namespace, rows - 1) as { id: number } | undefined;
        minId = edge ? edge.id - 1 : 0;
      }
    } catch {
      terms = tokens.slice(0, 32);
    }
    if (terms.length === 0) return { candidates: [], terms: weighted, corpus };
    try {
      // Column weights: title, summary, facts, files, code parts. The title and the changed
      // paths name what a record is about; the summary says more, less precisely.
      const rows = this.#stmt(
        `SELECT ${RECORD_COLUMNS_MR},
          bm25(memory_records_fts, ${BM25_WEIGHTS}) AS rank,
          bm25(memory_records_fts, 1, 0, 0, 0, 0) AS rank_title,
          bm25(memory_records_fts, 0, 1, 1, 0, 0) AS rank_summary,
          bm25(memory_records_fts, 0, 0, 0, 1, 0) AS rank_files
        FROM memory_records_fts JOIN memory_records mr ON mr.id = memory_records_fts.rowid
        WHERE memory_records_fts MATCH ? AND memory_records_fts.rowid > ? AND mr.namespace = ?
        ORDER BY rank, mr.record_id LIMIT ?`,
      ).all(buildFtsQuery(terms), minId, namespace, options.limit) as Row[];
      return {
        candidates: rows.map((row) => ({
          record: recordFromRow(row),
          bm25: -(row.rank as number),
          bm25Title: -(row.rank_title as number),
          bm25Summary: -(row.rank_summary as number),
          bm25Files: -(row.rank_files as number),
        })),
        terms: weighted,
        corpus,
      };
    } catch {
      // The index is unreadable: what the user typed, as substrings (`snake_case` whole).
      const typed = [...new Set(query.split(/\s+/u).filter((t) => t !== ""))].slice(0, 32);
      const like = this.#searchLike(namespace, typed, options.limit);
      return {
        candidates: like.map((h) => ({
          record: h.record,
          bm25: h.score,
          bm25Title: 0,
          bm25Summary: 0,
          bm25Files: 0,
        })),
        terms: weighted,
        corpus,
      };
    }
  }

  // Availability over ranking: any token as a substring, newest first.
  #searchLike(namespace: string, terms: readonly string[], limit: number): ScoredRecord[] {
    const picked = [...terms].sort((a, b) => b.length - a.length).slice(0, 8);
    const clauses = picked.map(() => "(title LIKE ? ESCAPE '\\' OR summary LIKE ? ESCAPE '\\')");
    const params = picked.flatMap((t) => {
      const pattern = `%${escapeLike(t)}%`;
      return [pattern, pattern];
    });
    const rows = this.#db.prepare(
      `SELECT ${RECORD_COLUMNS} FROM memory_records WHERE namespace = ? AND (${
        clauses.join(" OR ")
      }) ORDER BY created_at DESC, record_id DESC LIMIT ?`,
    ).all(namespace, ...params, limit) as Row[];
    return rows.map((row, i) => ({ record: recordFromRow(row), score: 1 / (i + 1) }));
  }

  // ---- embeddings ---------------------------------------------------------------------------

  /** See `Storage.putEmbedding`. */
  async putEmbedding(recordId: string, embedding: StoredEmbedding): Promise<void> {
    await Promise.resolve();
    this.#stmt(
      `UPDATE memory_records SET embedding = ?, embedding_model = ?, embedding_dim = ?,
        embed_failures = 0 WHERE record_id = ?`,
    ).run(encodeEmbedding(embedding.vector), embedding.model, embedding.vector.length, recordId);
  }

  /** See `Storage.listEmbeddings`. */
  async listEmbeddings(
    namespace: string,
    options: { model: string },
  ): Promise<{ record_id: string; vector: Float32Array }[]> {
    await Promise.resolve();
    const rows = this.#stmt(
      `SELECT record_id, embedding, embedding_dim FROM memory_records
      WHERE namespace = ? AND embedding_model = ? AND embedding IS NOT NULL`,
    ).all(namespace, options.model) as {
      record_id: string;
      embedding: Uint8Array;
      embedding_dim: number;
    }[];
    return rows.map((r) => ({
      record_id: r.record_id,
      vector: decodeEmbedding(r.embedding, { dim: r.embedding_dim, recordId: r.record_id }),
    }));
  }

  /** See `Storage.recordsNeedingEmbedding`. */
  async recordsNeedingEmbedding(
    options: { model: string; limit: number; maxFailures: number },
  ): Promise<MemoryRecord[]> {
    await Promise.resolve();
    return (this.#stmt(
      `SELECT ${RECORD_COLUMNS} FROM memory_records
      WHERE (embedding IS NULL OR embedding_model IS NOT ?) AND embed_failures < ?
      ORDER BY embed_failures, created_at LIMIT ?`,
    ).all(options.model, options.maxFailures, options.limit) as Row[]).map(recordFromRow);
  }

  /** See `Storage.markEmbeddingFailed`. */
  async markEmbeddingFailed(recordId: string): Promise<void> {
    await Promise.resolve();
    this.#stmt("UPDATE memory_records SET embed_failures = embed_failures + 1 WHERE record_id = ?")
      .run(recordId);
  }

  // ---- retrievals ---------------------------------------------------------------------------

  /** See `Storage.logRetrieval`. */
  async logRetrieval(log: RetrievalLog): Promise<number> {
    await Promise.resolve();
    return this.#transaction(() => {
      const { lastInsertRowid } = this.#stmt(
        `INSERT INTO retrievals (event_id, namespace, query, latency_ms, tokens, outcome, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        log.event_id ?? null,
        log.namespace,
        log.query,
        log.latency_ms,
        log.tokens,
        log.outcome,
        new Date().toISOString(),
      );
      const id = Number(lastInsertRowid);
      const link = this.#stmt(
        `INSERT INTO retrieval_records (retrieval_id, record_id, rank, score)
        SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM memory_records WHERE record_id = ?)`,
      );
      log.results.forEach((r, i) => link.run(id, r.record_id, i + 1, r.score, r.record_id));
      return id;
    });
  }

  /** See `Storage.listRetrievals`. */
  async listRetrievals(
    options: { namespace?: string; limit: number },
  ): Promise<RetrievalRow[]> {
    await Promise.resolve();
    const rows =
      (options.namespace === undefined
        ? this.#stmt("SELECT * FROM retrievals ORDER BY id DESC LIMIT ?").all(options.limit)
        : this.#stmt("SELECT * FROM retrievals WHERE namespace = ? ORDER BY id DESC LIMIT ?")
          .all(options.namespace, options.limit)) as Row[];
    const links = this.#stmt(
      `SELECT rr.record_id, rr.score, mr.title FROM retrieval_records rr
      JOIN memory_records mr ON mr.record_id = rr.record_id
      WHERE rr.retrieval_id = ? ORDER BY rr.rank`,
    );
    return rows.map((row) => ({
      id: row.id as number,
      event_id: (row.event_id as string | null) ?? undefined,
      namespace: row.namespace as string,
      query: row.query as string,
      latency_ms: row.latency_ms as number,
      tokens: row.tokens as number,
      outcome: row.outcome as RetrievalRow["outcome"],
      created_at: row.created_at as string,
      results: links.all(row.id as number) as RetrievalRow["results"],
    }));
  }

  // ---- extraction runs and LLM spend ---------------------------------------------------------

  /** See `Storage.recordRun`. */
  async recordRun(run: ExtractionRun): Promise<number> {
    await Promise.resolve();
    const { lastInsertRowid } = this.#stmt(
      `INSERT INTO extraction_runs (project_id, namespace, started_at, duration_ms, strategy,
        outcome, entries, chunks, records, attempts, chars_sent, chars_received, error, details_json)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      run.project_id,
      run.namespace,
      run.started_at,
      run.duration_ms,
      run.strategy,
      run.outcome,
      run.entries,
      run.chunks,
      run.records,
      run.attempts,
      run.chars_sent,
      run.chars_received,
      run.error ?? null,
      JSON.stringify(run.details ?? {}),
    );
    return Number(lastInsertRowid);
  }

  /** See `Storage.listRuns`. */
  async listRuns(options: { project_id?: string; limit: number }): Promise<ExtractionRun[]> {
    await Promise.resolve();
    const rows =
      (options.project_id === undefined
        ? this.#stmt("SELECT * FROM extraction_runs ORDER BY id DESC LIMIT ?").all(options.limit)
        : this.#stmt("SELECT * FROM extraction_runs WHERE project_id = ? ORDER BY id DESC LIMIT ?")
          .all(options.project_id, options.limit)) as Row[];
    return rows.map((row) => {
      const { details_json, ...rest } = row;
      return { ...rest, details: JSON.parse(details_json as string) } as unknown as ExtractionRun;
    });
  }

  /** See `Storage.addLlmUsage`. */
  async addLlmUsage(
    usage: {
      project_id: string;
      purpose: string;
      chars_sent: number;
      chars_received: number;
      calls?: number;
    },
  ): Promise<void> {
    await Promise.resolve();
    this.#addUsage(usage);
  }

  #addUsage(
    usage: {
      project_id: string;
      purpose: string;
      chars_sent: number;
      chars_received: number;
      calls?: number;
    },
  ): void {
    this.#stmt(
      `INSERT INTO llm_usage (day, project_id, purpose, calls, chars_sent, chars_received)
      VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT(day, project_id, purpose) DO UPDATE SET calls = calls + excluded.calls,
        chars_sent = chars_sent + excluded.chars_sent,
        chars_received = chars_received + excluded.chars_received`,
    ).run(
      new Date().toISOString().slice(0, 10),
      usage.project_id,
      usage.purpose,
      usage.calls ?? 1,
      usage.chars_sent,
      usage.chars_received,
    );
  }

  /** See `Storage.reserveLlmUsage`. */
  async reserveLlmUsage(
    usage: { project_id: string; purpose: string; chars: number; cap: number },
  ): Promise<boolean> {
    await Promise.resolve();
    return this.#transaction(() => {
      const { spent } = this.#stmt(
        "SELECT coalesce(sum(chars_sent), 0) AS spent FROM llm_usage WHERE day = ?",
      ).get(new Date().toISOString().slice(0, 10)) as { spent: number };
      if (spent + usage.chars > usage.cap) return false;
      this.#addUsage({
        project_id: usage.project_id,
        purpose: usage.purpose,
        chars_sent: usage.chars,
        chars_received: 0,
      });
      return true;
    });
  }

  /** See `Storage.llmUsage`. */
  async llmUsage(options: { day: string; project_id?: string }): Promise<LlmUsage> {
    await Promise.resolve();
    const row = (options.project_id === undefined
      ? this.#stmt(
        `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(chars_sent), 0) AS chars_sent,
          coalesce(sum(chars_received), 0) AS chars_received FROM llm_usage WHERE day = ?`,
      ).get(options.day)
      : this.#stmt(
        `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(chars_sent), 0) AS chars_sent,
          coalesce(sum(chars_received), 0) AS chars_received FROM llm_usage
        WHERE day = ? AND project_id = ?`,
      ).get(options.day, options.project_id)) as Omit<LlmUsage, "day">;
    return { day: options.day, ...row };
  }

  // ---- stats --------------------------------------------------------------------------------

  /** See `Storage.stats`. */
  async stats(options: { namespace?: string } = {}): Promise<Stats> {
    await Promise.resolve();
    const ns = options.namespace;
    const scoped = ns !== undefined;
    const nsClause = scoped ? "WHERE namespace = ?" : "";
    const args = scoped ? [ns] : [];
    const count = (sql: string) => (this.#stmt(sql).get(...args) as { n: number }).n;
    const groups = (sql: string) => {
      const out: Record<string, number> = {};
      for (const row of this.#stmt(sql).all(...args) as { k: string; n: number }[]) {
        out[row.k] = row.n;
      }
      return out;
    };
    const projects = this.#listProjects();
    return {
      total_events: count(`SELECT count(*) AS n FROM events ${nsClause}`),
      total_memories: count(`SELECT count(*) AS n FROM memory_records ${nsClause}`),
      total_projects: scoped ? 1 : projects.length,
      total_concepts: count(
        `SELECT count(DISTINCT lower(j.value)) AS n FROM memory_records, json_each(concepts_json) j
        ${nsClause}`,
      ),
      observation_types: groups(
        `SELECT observation_type AS k, count(*) AS n FROM memory_records ${nsClause} GROUP BY k`,
      ),
      event_kinds: groups(`SELECT kind AS k, count(*) AS n FROM events ${nsClause} GROUP BY k`),
      embeddings_present: count(
        `SELECT count(*) AS n FROM memory_records ${
          scoped ? "WHERE namespace = ? AND" : "WHERE"
        } embedding IS NOT NULL`,
      ),
      embeddings_missing: count(
        `SELECT count(*) AS n FROM memory_records ${
          scoped ? "WHERE namespace = ? AND" : "WHERE"
        } embedding IS NULL`,
      ),
      projects,
    };
  }

  #listProjects(): ProjectSummary[] {
    const rows = this.#stmt(
      `SELECT ns.namespace,
        (SELECT project_path FROM events e WHERE e.namespace = ns.namespace
          AND project_path IS NOT NULL ORDER BY valid_time DESC LIMIT 1) AS project_path,
        (SELECT count(*) FROM events e WHERE e.namespace = ns.namespace) AS event_count,
        (SELECT count(*) FROM memory_records m WHERE m.namespace = ns.namespace) AS memory_count
      FROM (SELECT DISTINCT namespace FROM events
        UNION SELECT DISTINCT namespace FROM memory_records) ns
      ORDER BY event_count DESC, ns.namespace`,
    ).all() as {
      namespace: string;
      project_path: string | null;
      event_count: number;
      memory_count: number;
    }[];
    return rows.map((row) => {
      const projectId = row.namespace.split("/").at(-2) ?? row.namespace;
      return {
        namespace: row.namespace,
        project_id: projectId,
        display_name: displayName(row.project_path, projectId, this.#home),
        event_count: row.event_count,
        memory_count: row.memory_count,
      };
    });
  }

  /** See `Storage.close`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    this.#db.close();
  }
}

// Builds `WHERE a AND b` from the conditions whose value is set (unset filters match all).
function whereClause(
  conditions: [sql: string, value: string | undefined][],
): { clause: string; params: string[] } {
  const set = conditions.filter((c): c is [string, string] => c[1] !== undefined);
  return {
    clause: set.length > 0 ? `WHERE ${set.map((c) => c[0]).join(" AND ")}` : "",
    params: set.map((c) => c[1]),
  };
}

const DF_CACHE_TTL_MS = 5 * 60_000;
const DF_CACHE_MAX = 100_000;

const RECORD_FIELDS = [
  "record_id",
  "namespace",
  "strategy",
  "title",
  "summary",
  "facts_json",
  "concepts_json",
  "files_touched_json",
  "observation_type",
  "source_event_ids_json",
  "created_at",
];
const RECORD_COLUMNS = RECORD_FIELDS.join(", ");
const RECORD_COLUMNS_MR = RECORD_FIELDS.map((f) => `mr.${f}`).join(", ");

function recordFromRow(row: Row): MemoryRecord {
  return {
    record_id: row.record_id as string,
    namespace: row.namespace as string,
    strategy: row.strategy as MemoryRecord["strategy"],
    title: row.title as string,
    summary: row.summary as string,
    facts: JSON.parse(row.facts_json as string),
    concepts: JSON.parse(row.concepts_json as string),
    files_touched: JSON.parse(row.files_touched_json as string),
    observation_type: row.observation_type as MemoryRecord["observation_type"],
    source_event_ids: JSON.parse(row.source_event_ids_json as string),
    created_at: row.created_at as string,
  };
}

function eventFromRow(row: Row): Event {
  const event: Event = {
    event_id: row.event_id as string,
    session_id: row.session_id as string,
    actor_id: row.actor_id as string,
    namespace: row.namespace as string,
    schema_version: 1,
    kind: row.kind as Event["kind"],
    body: JSON.parse(row.body_json as string),
    valid_time: row.valid_time as string,
    source: JSON.parse(row.source_json as string),
  };
  if (row.parent_event_id) event.parent_event_id = row.parent_event_id as string;
  if (row.content_hash) event.content_hash = row.content_hash as string;
  return event;
}

function queueEntryFromRow(row: Row): QueueEntry {
  return {
    seq: row.seq as number,
    project_id: row.project_id as string,
    namespace: row.namespace as string,
    kind: row.kind as QueueEntry["kind"],
    body: JSON.parse(row.body_json as string),
    timestamp: row.timestamp as string,
    surface: row.surface as QueueEntry["surface"],
    source_event_ids: JSON.parse(row.source_event_ids_json as string),
    compacted: row.compacted === 1,
    bytes: row.bytes as number,
  };
}

function displayName(path: string | null, projectId: string, home?: string): string {
  if (!path) return projectId.slice(0, 12);
  if (home && path === home) return "~ (global)";
  if (home && path.startsWith(home + "/")) return "~" + path.slice(home.length);
  return path;
}
