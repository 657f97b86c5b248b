/**
 * The SQLite backend of `Storage`, on `node:sqlite` (built into Deno: no FFI, nothing fetched).
 *
 * One connection, used from one thread: SQLite calls are synchronous, so each method below is
 * one transaction that nothing else can interleave with. Methods are `async` only to honour the
 * backend-neutral interface.
 *
 * @module
 */
import type { Event, MemoryRecord, QueueEntry } from "../schemas/mod.ts";
import type { LexicalCandidates, TermSpaceDoc, TermStats } from "../search/mod.ts";
import { migrate } from "./migrations.ts";
import type {
  CommitExtractionResult,
  EmbeddingPage,
  ExtractionRun,
  LlmUsage,
  MergeRow,
  NamespaceMove,
  NewQueueEntry,
  QueueDepth,
  ReconciliationCommit,
  RecordFilter,
  RecordWithEmbedding,
  RetrievalLog,
  RetrievalRow,
  ScoredRecord,
  Stats,
  Storage,
  StoredEmbedding,
  StoredTermSpace,
  StoredTermSpaceInfo,
  TeamApplied,
  TeamApplyBatch,
  TeamOutboxItem,
  TeamProvenance,
  TeamStatusCounts,
  TeamStore,
} from "./types.ts";
import { DatabaseSync } from "node:sqlite";
import {
  addLlmUsage,
  injectedInSession,
  listRetrievals,
  listRuns,
  llmUsage,
  logRetrieval,
  recordRun,
  reserveLlmUsage,
  retrievedInSession,
} from "./_audit.ts";
import {
  countRecordsNeedingEmbedding,
  getEmbeddings,
  listEmbeddingPage,
  listEmbeddings,
  markEmbeddingFailed,
  putEmbeddings,
  recordsNeedingEmbedding,
} from "./_embeddings.ts";
import { findSameEvent, getEvents, ingestEvent, ingestEvents, listEvents } from "./_events.ts";
import {
  searchCandidates,
  searchCandidatesSync,
  searchLexical,
  searchLexicalSync,
  termStats,
} from "./_lexical.ts";
import {
  commitExtraction,
  commitReconciliation,
  listMerges,
  queueDepths,
  replaceQueueRows,
  snapshotQueue,
} from "./_queue.ts";
import {
  deleteRecords,
  forgetRecords,
  getRecords,
  listRecords,
  putRecord,
  recentRecords,
  scrubDeleted,
  updateRecord,
} from "./_records.ts";
import { stats } from "./_stats.ts";
import {
  countRecords,
  getTermSpace,
  listTermSpaces,
  putTermSpace,
  termSpaceDocs,
} from "./_term_spaces.ts";
import { moveNamespace, namespaceMovedTo } from "./_moves.ts";
import {
  setTeamCapture,
  teamAck,
  teamApply,
  teamClientId,
  teamCounts,
  teamCursor,
  teamLocalNamespace,
  teamOutbox,
  teamProvenance,
  teamStartedProjects,
  teamStartProject,
} from "./_team.ts";
import { Connection } from "./_connection.ts";
import type { WriteTurns } from "./write_turns.ts";
import { deriveSearchText } from "./_search_text.ts";

/** Options for opening the database. */
export interface SqliteStorageOptions {
  /** Home directory, to show project paths as `~/...`. */
  home?: string;
  /** Busy timeout in milliseconds (other processes holding the write lock). */
  busyTimeoutMs?: number;
  /**
   * Pages of WAL after which a commit of this connection copies the WAL into the database
   * (SQLite's `wal_autocheckpoint`, default 1000; 0: never, another connection does it).
   */
  walAutoCheckpoint?: number;
  /**
   * Announce every write transaction here, so that a background writer on another connection of
   * this process (the team sync Worker) gives the write lock back at once (`write_turns.ts`).
   */
  writeTurns?: WriteTurns;
}

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
      PRAGMA secure_delete = ON;
      PRAGMA wal_autocheckpoint = ${Math.trunc(options.walAutoCheckpoint ?? 1000)};`);
    migrate(db);
    deriveSearchText(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return new SqliteStorage(db, options);
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

/** `Storage` on one SQLite connection; each table family lives in its own module. */
export class SqliteStorage implements Storage, TeamStore {
  #c: Connection;
  #closed = false;

  /** Wraps an open, migrated connection. Use `openSqliteStorage`. */
  constructor(db: DatabaseSync, options: SqliteStorageOptions = {}) {
    this.#c = new Connection(db, { home: options.home, turns: options.writeTurns });
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms USING fts5(
        t, tokenize='porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_terms_vocab
        USING fts5vocab(temp, query_terms, instance);`);
  }

  /** The raw connection, for tests and benchmarks that need to look underneath. */
  get db(): DatabaseSync {
    return this.#c.db;
  }

  /** See `Storage.ingestEvent`. */
  ingestEvent(
    event: Event,
    options: { project_id: string; enqueue: boolean },
  ): Promise<boolean> {
    return ingestEvent(this.#c, event, options);
  }

  /** See `Storage.ingestEvents`. */
  ingestEvents(
    items: readonly { event: Event; project_id: string; enqueue: boolean }[],
  ): Promise<boolean[]> {
    return ingestEvents(this.#c, items);
  }

  /** See `Storage.getEvents`. */
  getEvents(ids: readonly string[]): Promise<Event[]> {
    return getEvents(this.#c, ids);
  }

  /** See `Storage.findSameEvent`. */
  findSameEvent(event: Event, options: { windowMs: number }): Promise<string | null> {
    return findSameEvent(this.#c, event, options);
  }

  /** See `Storage.listEvents`. */
  listEvents(
    options: { namespace?: string; limit: number; offset?: number },
  ): Promise<{ items: Event[]; total: number }> {
    return listEvents(this.#c, options);
  }

  /** See `Storage.queueDepths`. */
  queueDepths(): Promise<QueueDepth[]> {
    return queueDepths(this.#c);
  }

  /** See `Storage.snapshotQueue`. */
  snapshotQueue(
    projectId: string,
    options: { maxSeq?: number; limit?: number } = {},
  ): Promise<QueueEntry[]> {
    return snapshotQueue(this.#c, projectId, options);
  }

  /** See `Storage.commitExtraction`. */
  commitExtraction(
    options: {
      consumedSeqs: readonly number[];
      records: RecordWithEmbedding[];
      skipIdentical?: boolean;
    },
  ): Promise<CommitExtractionResult> {
    return commitExtraction(this.#c, options);
  }

  /** See `Storage.commitReconciliation`. */
  commitReconciliation(commit: ReconciliationCommit): Promise<void> {
    return commitReconciliation(this.#c, commit);
  }

  /** See `Storage.listMerges`. */
  listMerges(
    options: { namespace?: string; summary_id?: string; limit: number },
  ): Promise<MergeRow[]> {
    return listMerges(this.#c, options);
  }

  /** See `Storage.replaceQueueRows`. */
  replaceQueueRows(
    options: { removeSeqs: readonly number[]; entries: NewQueueEntry[] },
  ): Promise<number[]> {
    return replaceQueueRows(this.#c, options);
  }

  /** See `Storage.putRecord`. */
  putRecord(
    record: MemoryRecord,
    options: { embedding?: StoredEmbedding | null } = {},
  ): Promise<void> {
    return putRecord(this.#c, record, options);
  }

  /** See `Storage.getRecords`. */
  getRecords(ids: readonly string[]): Promise<MemoryRecord[]> {
    return getRecords(this.#c, ids);
  }

  /** See `Storage.updateRecord`. */
  updateRecord(
    recordId: string,
    patch: Partial<Pick<MemoryRecord, "title" | "summary" | "facts" | "concepts">>,
  ): Promise<MemoryRecord | null> {
    return updateRecord(this.#c, recordId, patch);
  }

  /** See `Storage.deleteRecords`. */
  deleteRecords(ids: readonly string[]): Promise<number> {
    return deleteRecords(this.#c, ids);
  }

  /** See `Storage.forgetRecords`. */
  forgetRecords(
    ids: readonly string[],
    options: { withSources?: boolean } = {},
  ): Promise<{ records: number; events: number }> {
    return forgetRecords(this.#c, ids, options);
  }

  /** See `Storage.listRecords`. */
  listRecords(filter: RecordFilter): Promise<{ items: MemoryRecord[]; total: number }> {
    return listRecords(this.#c, filter);
  }

  /** See `Storage.recentRecords`. */
  recentRecords(
    namespace: string,
    options: { limit: number; types?: string[] },
  ): Promise<MemoryRecord[]> {
    return recentRecords(this.#c, namespace, options);
  }

  /** See `Storage.termSpaceDocs`. */
  termSpaceDocs(
    namespace: string,
    options: { after: number; limit: number; newest?: number },
  ): Promise<{ docs: TermSpaceDoc[]; last: number }> {
    return termSpaceDocs(this.#c, namespace, options);
  }

  /** See `Storage.countRecords`. */
  countRecords(namespace: string): Promise<number> {
    return countRecords(this.#c, namespace);
  }

  /** See `Storage.getTermSpace`. */
  getTermSpace(namespace: string): Promise<StoredTermSpace | null> {
    return getTermSpace(this.#c, namespace);
  }

  /** See `Storage.putTermSpace`. */
  putTermSpace(
    space: StoredTermSpace,
    options?: { unlessForgottenSince?: string },
  ): Promise<boolean> {
    return putTermSpace(this.#c, space, options);
  }

  /** See `Storage.listTermSpaces`. */
  listTermSpaces(): Promise<StoredTermSpaceInfo[]> {
    return listTermSpaces(this.#c);
  }

  /** Stems and document frequencies of query tokens, from the index's own tokenizer. */
  termStats(tokens: readonly string[], options: { corpusSize?: number } = {}): TermStats[] {
    return termStats(this.#c, tokens, options);
  }

  /** See `Storage.searchLexical`. */
  searchLexical(
    namespace: string,
    query: string,
    options: { limit: number },
  ): Promise<ScoredRecord[]> {
    return searchLexical(this.#c, namespace, query, options);
  }

  /** Synchronous lexical search (the retrieval benchmark measures this). */
  searchLexicalSync(namespace: string, query: string, options: { limit: number }): ScoredRecord[] {
    return searchLexicalSync(this.#c, namespace, query, options);
  }

  /** See `Storage.searchCandidates`. */
  searchCandidates(
    namespace: string,
    query: string,
    options: { limit: number },
  ): Promise<LexicalCandidates> {
    return searchCandidates(this.#c, namespace, query, options);
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
    return searchCandidatesSync(this.#c, namespace, query, options);
  }

  /** See `Storage.putEmbeddings`. */
  putEmbeddings(
    rows: readonly { record_id: string; embedding: StoredEmbedding }[],
  ): Promise<void> {
    return putEmbeddings(this.#c, rows);
  }

  /** See `Storage.listEmbeddingPage`. */
  listEmbeddingPage(
    namespace: string,
    options: { model: string; after: number; limit: number },
  ): Promise<EmbeddingPage> {
    return listEmbeddingPage(this.#c, namespace, options);
  }

  /** See `Storage.getEmbeddings`. */
  getEmbeddings(
    namespace: string,
    options: { model: string; recordIds: readonly string[] },
  ): Promise<{ record_id: string; vector: Float32Array }[]> {
    return getEmbeddings(this.#c, namespace, options);
  }

  /** See `Storage.listEmbeddings`. */
  listEmbeddings(
    namespace: string,
    options: { model: string },
  ): Promise<{ record_id: string; vector: Float32Array }[]> {
    return listEmbeddings(this.#c, namespace, options);
  }

  /** See `Storage.countRecordsNeedingEmbedding`. */
  countRecordsNeedingEmbedding(
    options: { model: string; limit: number; maxFailures: number },
  ): Promise<number> {
    return countRecordsNeedingEmbedding(this.#c, options);
  }

  /** See `Storage.recordsNeedingEmbedding`. */
  recordsNeedingEmbedding(
    options: { model: string; limit: number; maxFailures: number },
  ): Promise<MemoryRecord[]> {
    return recordsNeedingEmbedding(this.#c, options);
  }

  /** See `Storage.markEmbeddingFailed`. */
  markEmbeddingFailed(recordId: string): Promise<void> {
    return markEmbeddingFailed(this.#c, recordId);
  }

  /** See `Storage.logRetrieval`. */
  logRetrieval(log: RetrievalLog): Promise<number> {
    return logRetrieval(this.#c, log);
  }

  /** See `Storage.injectedInSession`. */
  injectedInSession(
    namespace: string,
    sessionId: string,
    options: { query?: string } = {},
  ): Promise<string[]> {
    return injectedInSession(this.#c, { namespace, sessionId }, options);
  }

  /** See `Storage.retrievedInSession`. */
  retrievedInSession(
    namespace: string,
    sessionId: string,
    options: { query: string },
  ): Promise<boolean> {
    return retrievedInSession(this.#c, { namespace, sessionId }, options);
  }

  /** See `Storage.listRetrievals`. */
  listRetrievals(
    options: { namespace?: string; limit: number },
  ): Promise<RetrievalRow[]> {
    return listRetrievals(this.#c, options);
  }

  /** See `Storage.recordRun`. */
  recordRun(run: ExtractionRun): Promise<number> {
    return recordRun(this.#c, run);
  }

  /** See `Storage.listRuns`. */
  listRuns(options: { project_id?: string; limit: number }): Promise<ExtractionRun[]> {
    return listRuns(this.#c, options);
  }

  /** See `Storage.addLlmUsage`. */
  addLlmUsage(
    usage: {
      project_id: string;
      purpose: string;
      chars_sent: number;
      chars_received: number;
      calls?: number;
    },
  ): Promise<void> {
    return addLlmUsage(this.#c, usage);
  }

  /** See `Storage.reserveLlmUsage`. */
  reserveLlmUsage(
    usage: { project_id: string; purpose: string; chars: number; cap: number },
  ): Promise<boolean> {
    return reserveLlmUsage(this.#c, usage);
  }

  /** See `Storage.llmUsage`. */
  llmUsage(options: { day: string; project_id?: string }): Promise<LlmUsage> {
    return llmUsage(this.#c, options);
  }

  /** See `Storage.stats`. */
  stats(options: { namespace?: string } = {}): Promise<Stats> {
    return stats(this.#c, options);
  }

  /** See `Storage.moveNamespace`. */
  moveNamespace(
    move: { from: string; to: string; fromProjectId: string; toProjectId: string },
  ): Promise<NamespaceMove> {
    return moveNamespace(this.#c, move);
  }

  /** See `Storage.namespaceMovedTo`. */
  namespaceMovedTo(namespace: string): Promise<string | null> {
    return namespaceMovedTo(this.#c, namespace);
  }

  /** See `TeamStore.setTeamCapture`. */
  setTeamCapture(on: boolean): void {
    setTeamCapture(this.#c, on);
  }

  /** See `TeamStore.teamClientId`. */
  teamClientId(): string {
    return teamClientId(this.#c);
  }

  /** See `TeamStore.teamStartProject`. */
  teamStartProject(projectKey: string): boolean {
    return teamStartProject(this.#c, projectKey);
  }

  /** See `TeamStore.teamOutbox`. */
  teamOutbox(options: { limit: number; afterSeq?: number }): TeamOutboxItem[] {
    return teamOutbox(this.#c, options);
  }

  /** See `TeamStore.teamStartedProjects`. */
  teamStartedProjects(): string[] {
    return teamStartedProjects(this.#c);
  }

  /** See `TeamStore.teamAck`. */
  teamAck(seqs: readonly number[]): void {
    teamAck(this.#c, seqs);
  }

  /** See `TeamStore.teamCursor`. */
  teamCursor(projectKey: string): number {
    return teamCursor(this.#c, projectKey);
  }

  /** See `TeamStore.teamLocalNamespace`. */
  teamLocalNamespace(projectKey: string): string | null {
    return teamLocalNamespace(this.#c, projectKey);
  }

  /** See `TeamStore.teamApply`. */
  teamApply(batch: TeamApplyBatch): TeamApplied {
    return teamApply(this.#c, batch);
  }

  /** See `TeamStore.scrubDeleted`. */
  scrubDeleted(): void {
    scrubDeleted(this.#c);
  }

  /** See `TeamStore.checkpointWal`. */
  checkpointWal(): void {
    this.#c.db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  }

  /** See `TeamStore.teamCounts`. */
  teamCounts(): TeamStatusCounts {
    return teamCounts(this.#c);
  }

  /** See `TeamStore.teamProvenance`. */
  teamProvenance(ids: readonly string[]): Map<string, TeamProvenance> {
    return teamProvenance(this.#c, ids);
  }

  /** Closes the connection (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#c.clear();
    this.#c.db.close();
  }
}
