/**
 * The storage interface: everything the pipelines need from a database, and nothing more.
 *
 * Every multi-row change that must be atomic is one method (ingest an event with its queue row,
 * commit extraction output with the consumed queue rows, replace queue rows by compacted ones),
 * so a backend other than SQLite only has to make each method one transaction.
 *
 * @module
 */
import type { Event, EventBody, EventKind, MemoryRecord, QueueEntry } from "../schemas/mod.ts";
import type { LexicalCandidates, TermSpaceDoc } from "../search/mod.ts";

/** A record together with its optional embedding. */
export interface RecordWithEmbedding {
  /** The record. */
  record: MemoryRecord;
  /** Its embedding, if one was computed. */
  embedding?: StoredEmbedding | null;
}

/** One page of a namespace's embeddings (`Storage.listEmbeddingPage`). */
export interface EmbeddingPage {
  /** Records with their vectors. */
  rows: { record_id: string; vector: Float32Array }[];
  /** Pass as `after` for the next page; null after the last one. */
  next: number | null;
  /**
   * On the first page (`after: 0`) only: how many rows all pages hold at this moment, so a
   * reader can size its buffer once instead of growing it (and leaving the old ones behind).
   */
  total?: number;
}

/** An embedding and the model that produced it. */
export interface StoredEmbedding {
  /** Model identifier, for example `use-lite@0.2.0`. */
  model: string;
  /** The vector (its length is the dimension). */
  vector: Float32Array;
}

/** A new queue row (compaction output). */
export interface NewQueueEntry {
  /** Project the row belongs to. */
  project_id: string;
  /** Namespace of the events. */
  namespace: string;
  /** Event kind. */
  kind: EventKind;
  /** Body. */
  body: EventBody;
  /** Timestamp (the newest replaced event's time for compacted rows). */
  timestamp: string;
  /** Capture surface. */
  surface: QueueEntry["surface"];
  /** Events this row stands for. */
  source_event_ids: string[];
  /** True for compacted rows. */
  compacted: boolean;
}

/** A lexical hit. */
export interface ScoredRecord {
  /** The record. */
  record: MemoryRecord;
  /** Higher is better. */
  score: number;
}

/** Per-project queue totals. */
export interface QueueDepth {
  /** Project id. */
  project_id: string;
  /** Namespace. */
  namespace: string;
  /** Rows queued. */
  rows: number;
  /** Bytes queued. */
  bytes: number;
}

/** A retrieval to audit. */
export interface RetrievalLog {
  /** The prompt event that asked. */
  event_id?: string;
  /** Namespace searched. */
  namespace: string;
  /** The (scrubbed) query. */
  query: string;
  /** Records injected, best first. */
  results: { record_id: string; score: number }[];
  /** Whole-search latency. */
  latency_ms: number;
  /** Estimated tokens injected. */
  tokens: number;
  /** `ok`, `empty`, `timeout` or `error`. */
  outcome: "ok" | "empty" | "timeout" | "error";
}

/** A stored retrieval, as the viewer shows it. */
export interface RetrievalRow extends Omit<RetrievalLog, "results"> {
  /** Row id. */
  id: number;
  /** When. */
  created_at: string;
  /** Injected records still present (forgotten ones drop out). */
  results: { record_id: string; score: number; title: string }[];
}

/** Filters for listing records. */
export interface RecordFilter {
  /** Exact namespace. */
  namespace?: string;
  /** Observation type. */
  observation_type?: MemoryRecord["observation_type"];
  /** Strategy. */
  strategy?: MemoryRecord["strategy"];
  /** Created at or after (ISO). */
  since?: string;
  /** Page size. */
  limit: number;
  /** Offset. */
  offset: number;
}

/** What `Storage.commitExtraction` did beyond its commit. */
export interface CommitExtractionResult {
  /** Ids of the records left out because an identical one was already stored. */
  skipped: string[];
}

/** What a stored term space's row says about it, without its data. */
export interface StoredTermSpaceInfo {
  /** Its namespace (a space is only ever used for its own). */
  namespace: string;
  /** `RECORD_SPACE_VERSION` it was written with. */
  version: number;
  /** Records of the namespace it was trained on. */
  record_count: number;
  /** When (ISO). */
  trained_at: string;
  /** Size of its data. */
  bytes: number;
}

/** A stored term space (`core/search/record_space.ts`'s `encodeTermSpace` bytes). */
export interface StoredTermSpace extends Omit<StoredTermSpaceInfo, "bytes"> {
  /** The encoded space. */
  data: Uint8Array;
}

/** One project, as stats and the viewer list it. */
export interface ProjectSummary {
  /** Namespace. */
  namespace: string;
  /** Project id (the namespace's last segment). */
  project_id: string;
  /** Path with `~` for home, or a short id. */
  display_name: string;
  /** Events captured. */
  event_count: number;
  /** Records stored. */
  memory_count: number;
}

/** Counts for `/v1/stats`. */
export interface Stats {
  /** Events stored. */
  total_events: number;
  /** Records stored. */
  total_memories: number;
  /** Projects seen. */
  total_projects: number;
  /** Distinct concepts. */
  total_concepts: number;
  /** Records per observation type. */
  observation_types: Record<string, number>;
  /** Events per kind. */
  event_kinds: Record<string, number>;
  /** Events per agent (the surface a hook filed them under: `claude-code`, `gemini-cli`, …). */
  event_agents: Record<string, number>;
  /** Records with an embedding. */
  embeddings_present: number;
  /** Records without one. */
  embeddings_missing: number;
  /** Projects, most events first (always global). */
  projects: ProjectSummary[];
}

/** One extraction run, as the viewer and status show it. */
export interface ExtractionRun {
  /** Row id (absent before it is stored). */
  id?: number;
  /** Project. */
  project_id: string;
  /** Namespace. */
  namespace: string;
  /** Start time (ISO). */
  started_at: string;
  /** Wall time. */
  duration_ms: number;
  /** `acp`, `heuristic`, or `compaction`. */
  strategy: string;
  /** `ok`, `skip`, `failed`, or `partial`. */
  outcome: string;
  /** Queue entries considered. */
  entries: number;
  /** Prompt-sized batches. */
  chunks: number;
  /** Records committed. */
  records: number;
  /** LLM sessions spawned. */
  attempts: number;
  /** Characters sent to the model. */
  chars_sent: number;
  /** Characters received from it. */
  chars_received: number;
  /** Error text when it failed. */
  error?: string | null;
  /** Phase latencies and other counters. */
  details?: Record<string, unknown>;
}

/** LLM spend for one day. */
export interface LlmUsage {
  /** Day (UTC, YYYY-MM-DD). */
  day: string;
  /** Calls made. */
  calls: number;
  /** Characters sent. */
  chars_sent: number;
  /** Characters received. */
  chars_received: number;
}

/** One reconciliation merge: the summary record and the records it replaced, as they were. */
export interface MergeLog {
  /** The new summary record's id. */
  summary_id: string;
  /**
   * Everything the summary replaced: stored neighbours (deleted by the same commit) and
   * candidates that were never stored, in the judge's resolved order.
   */
  replaced: MemoryRecord[];
}

/** A stored merge, as the viewer shows it. */
export interface MergeRow extends MergeLog {
  /** Row id. */
  id: number;
  /** Namespace of the summary. */
  namespace: string;
  /** Ids of `replaced`, in order. */
  replaced_ids: string[];
  /** When the merge was committed (ISO). */
  merged_at: string;
}

/**
 * A chunk's whole reconciliation outcome: every cluster's records and deletions, the merges to
 * record, and the queue rows the chunk consumed. Committed as one transaction.
 */
export interface ReconciliationCommit {
  /** Queue rows consumed; every one must still exist. */
  consumedSeqs: readonly number[];
  /** Records to insert (kept candidates and merge summaries). */
  put: RecordWithEmbedding[];
  /** Stored records a merge replaced; every one must still exist. */
  deleteIds: readonly string[];
  /** Merges to record in `record_merges`. */
  merges: MergeLog[];
}

/** How many rows of each kind one {@linkcode Storage.moveNamespace} moved. */
export interface NamespaceMove {
  /** Events. */
  events: number;
  /** Extraction queue rows. */
  queue_rows: number;
  /** Memory records (their embeddings are columns of the same rows). */
  records: number;
  /** Retrieval log rows. */
  retrievals: number;
  /** Extraction run rows. */
  runs: number;
  /** Merge history rows. */
  merges: number;
  /** LLM usage rows added into the new project id's. */
  llm_usage_rows: number;
}

/** A record or queue row that a commit relies on is gone (deleted or consumed meanwhile). */
export class StaleCommitError extends Error {
  /** Record ids a merge meant to delete that no longer exist. */
  readonly missingRecords: string[];
  /** Queue seqs that no longer exist. */
  readonly missingSeqs: number[];
  /** Creates the error. */
  constructor(missing: { records: string[]; seqs: number[] }) {
    super(
      `commit refused: ${missing.records.length} record(s) and ${missing.seqs.length} queue ` +
        `row(s) it relies on are gone; nothing was written`,
    );
    this.name = "StaleCommitError";
    this.missingRecords = missing.records;
    this.missingSeqs = missing.seqs;
  }
}

/** What the collector and workers need from a database (team sharing's local side included). */
export interface Storage extends TeamStore {
  /**
   * Stores an (already scrubbed) event and its queue row in one transaction. Idempotent on
   * `event_id`: a second insert stores nothing and returns `false`.
   */
  ingestEvent(event: Event, options: { project_id: string; enqueue: boolean }): Promise<boolean>;
  /**
   * Stores several events (each with its queue row) in ONE transaction: group commit for
   * concurrent requests. Returns, per event, whether it was new.
   */
  ingestEvents(
    items: readonly { event: Event; project_id: string; enqueue: boolean }[],
  ): Promise<boolean[]>;
  /** Events by id (missing ids are skipped). */
  getEvents(ids: readonly string[]): Promise<Event[]>;
  /**
   * Another event of `event`'s session with its kind and body, within `windowMs` of its time:
   * the same moment recorded by a hook (for an event rebuilt from a transcript). Its id, or
   * null (also when `event` itself is stored: that is the id dedup's business).
   */
  findSameEvent(event: Event, options: { windowMs: number }): Promise<string | null>;
  /** Newest events first. */
  listEvents(options: { namespace?: string; limit: number; offset?: number }): Promise<{
    items: Event[];
    total: number;
  }>;

  /** Queue totals per project (startup re-arm, status). */
  queueDepths(): Promise<QueueDepth[]>;
  /** The project's queue in order, up to `maxSeq` (the watermark) and `limit` rows. */
  snapshotQueue(
    projectId: string,
    options?: { maxSeq?: number; limit?: number },
  ): Promise<QueueEntry[]>;
  /**
   * Commits extraction output and deletes exactly the consumed queue rows, in one transaction.
   * Records that already exist (same id) make the whole commit fail and change nothing, and so
   * does a consumed queue row that is gone (`StaleCommitError`): another run consumed it, so
   * these records would copy that run's (two runs can hold the same rows when a project's
   * namespace moved while one was in flight).
   */
  commitExtraction(
    options: {
      consumedSeqs: readonly number[];
      records: RecordWithEmbedding[];
      /**
       * Leave out a record identical to one already stored in its namespace (or earlier in this
       * commit): same type, title, summary, facts, concepts and files. Its rows are consumed all
       * the same: the observations are remembered, once.
       */
      skipIdentical?: boolean;
    },
  ): Promise<CommitExtractionResult>;
  /**
   * Commits a chunk's reconciliation outcome in one transaction: deletes the replaced records,
   * inserts the new ones, records the merges and deletes the consumed queue rows. If a record to
   * delete or a queue row to consume is gone, throws `StaleCommitError` and changes nothing (a
   * merge must not resurrect a forgotten record, and consumed rows must not be committed twice).
   */
  commitReconciliation(commit: ReconciliationCommit): Promise<void>;
  /** Merges, newest first, optionally of one namespace or one summary record. */
  listMerges(options: { namespace?: string; summary_id?: string; limit: number }): Promise<
    MergeRow[]
  >;
  /** Replaces queue rows by compacted rows in one transaction; returns the new rows' seqs. */
  replaceQueueRows(
    options: { removeSeqs: readonly number[]; entries: NewQueueEntry[] },
  ): Promise<number[]>;

  /**
   * Stores one record (and its embedding). Throws `DuplicateRecordError` on an existing id and
   * `ForgottenRecordError` on the id of a forgotten one.
   */
  putRecord(record: MemoryRecord, options?: { embedding?: StoredEmbedding | null }): Promise<void>;
  /** Records by id, in the order asked. */
  getRecords(ids: readonly string[]): Promise<MemoryRecord[]>;
  /** Applies an edit to title, summary or facts; returns the updated record or null. */
  updateRecord(
    recordId: string,
    patch: Partial<Pick<MemoryRecord, "title" | "summary" | "facts" | "concepts">>,
  ): Promise<MemoryRecord | null>;
  /**
   * Deletes records and everything derived from them (including the merge history of a deleted
   * summary: forgetting must forget); returns how many existed.
   */
  deleteRecords(ids: readonly string[]): Promise<number>;
  /**
   * Forgets records for good (the user asked): deletes them, with `withSources` also the events
   * they came from, and leaves no byte of them in the database file, its WAL or the full-text
   * index; their namespaces' stored term spaces (learned from them too) are deleted. Slower than `deleteRecords` (it merges the index and checkpoints).
   */
  forgetRecords(
    ids: readonly string[],
    options?: { withSources?: boolean },
  ): Promise<{ records: number; events: number }>;
  /** Pages through records, newest first. */
  listRecords(filter: RecordFilter): Promise<{ items: MemoryRecord[]; total: number }>;
  /** Ranked full-text search in exactly one namespace. */
  searchLexical(
    namespace: string,
    query: string,
    options: { limit: number },
  ): Promise<ScoredRecord[]>;
  /**
   * BM25 candidates with per-column scores and the query's weighted terms: the input of the
   * reranker (`core/search/rerank.ts`).
   */
  searchCandidates(
    namespace: string,
    query: string,
    options: { limit: number },
  ): Promise<LexicalCandidates>;
  /**
   * A page of a namespace's records as term-space training documents, in row order after row id
   * `after` (and among its `newest` records only, when given); `last` is the page's last row id
   * (the next page's `after`).
   */
  termSpaceDocs(
    namespace: string,
    options: { after: number; limit: number; newest?: number },
  ): Promise<{ docs: TermSpaceDoc[]; last: number }>;
  /** How many records a namespace holds. */
  countRecords(namespace: string): Promise<number>;
  /** A namespace's stored term space, or null. */
  getTermSpace(namespace: string): Promise<StoredTermSpace | null>;
  /**
   * Stores (or replaces) a namespace's term space; with `unlessForgottenSince`, only when no
   * record was forgotten since that time (the space may have learned from it). True if stored.
   */
  putTermSpace(
    space: StoredTermSpace,
    options?: { unlessForgottenSince?: string },
  ): Promise<boolean>;
  /** Every stored term space, without its data (for status). */
  listTermSpaces(): Promise<StoredTermSpaceInfo[]>;
  /** Newest records of a namespace. */
  recentRecords(
    namespace: string,
    options: { limit: number; types?: string[] },
  ): Promise<MemoryRecord[]>;

  /**
   * Stores (or replaces) several embeddings in one transaction (the backfill's batches: one WAL commit instead
   * of one per record, on the thread that serves ingest). A missing record is skipped.
   */
  putEmbeddings(rows: readonly { record_id: string; embedding: StoredEmbedding }[]): Promise<void>;
  /** Records of a namespace with an embedding from `model`. */
  listEmbeddings(namespace: string, options: { model: string }): Promise<{
    record_id: string;
    vector: Float32Array;
  }[]>;
  /**
   * The same rows as `listEmbeddings`, one page of at most `limit`: start with `after: 0`, then
   * pass the page's `next` until it is null (the vector index loads a namespace this way, so it
   * never holds every blob at once).
   */
  listEmbeddingPage(
    namespace: string,
    options: { model: string; after: number; limit: number },
  ): Promise<EmbeddingPage>;
  /**
   * The stored vectors of those of `recordIds` that are in `namespace` with an embedding from
   * `model`, in any order (the vector index rescores its shortlist with them).
   */
  getEmbeddings(
    namespace: string,
    options: { model: string; recordIds: readonly string[] },
  ): Promise<{ record_id: string; vector: Float32Array }[]>;
  /** Records lacking an embedding from `model`, fewest failures first, oldest first. */
  recordsNeedingEmbedding(
    options: { model: string; limit: number; maxFailures: number },
  ): Promise<MemoryRecord[]>;
  /**
   * How many records `recordsNeedingEmbedding` would return with the same options, without
   * reading them (the backfill's progress count).
   */
  countRecordsNeedingEmbedding(
    options: { model: string; limit: number; maxFailures: number },
  ): Promise<number>;
  /** Counts a failed embedding attempt against a record. */
  markEmbeddingFailed(recordId: string): Promise<void>;

  /** Writes one injection to the audit table; returns its id. */
  logRetrieval(log: RetrievalLog): Promise<number>;
  /**
   * Ids of the records already injected into a session (through any event of it in the
   * namespace), optionally only by retrievals logged with the query `options.query` (the
   * session-start block's): the context it holds, which later blocks need not repeat.
   */
  injectedInSession(
    namespace: string,
    sessionId: string,
    options?: { query?: string },
  ): Promise<string[]>;
  /**
   * Whether a retrieval logged with the query `options.query` (even an empty one) went to an
   * event of the session in the namespace: the session-start block was given.
   */
  retrievedInSession(
    namespace: string,
    sessionId: string,
    options: { query: string },
  ): Promise<boolean>;
  /** Newest injections first. */
  listRetrievals(options: { namespace?: string; limit: number }): Promise<RetrievalRow[]>;

  /** Writes one extraction run; returns its id. */
  recordRun(run: ExtractionRun): Promise<number>;
  /** Newest runs first. */
  listRuns(options: { project_id?: string; limit: number }): Promise<ExtractionRun[]>;
  /** Adds LLM spend to today's (UTC) counters (`calls` defaults to 1). */
  addLlmUsage(
    usage: {
      project_id: string;
      purpose: string;
      chars_sent: number;
      chars_received: number;
      calls?: number;
    },
  ): Promise<void>;
  /**
   * Reserves `chars` of today's budget for one LLM session, in one transaction: counts the call
   * and its prompt characters when today's total (all projects, sent and received) plus `chars`
   * stays within `cap`,
   * and returns false (changing nothing) otherwise.
   */
  reserveLlmUsage(
    usage: { project_id: string; purpose: string; chars: number; cap: number },
  ): Promise<boolean>;
  /** Spend of one day, over every project (or one). */
  llmUsage(options: { day: string; project_id?: string }): Promise<LlmUsage>;

  /** Counts for the API and the viewer. */
  stats(options?: { namespace?: string }): Promise<Stats>;
  /**
   * Moves every row of namespace `from` (project id `fromProjectId`) to `to`, in one
   * transaction, and, when there was anything to move, records the move so later writes under
   * `from` land in `to`. Idempotent; refuses `from === to` and a `to` that was itself moved.
   */
  moveNamespace(
    move: { from: string; to: string; fromProjectId: string; toProjectId: string },
  ): Promise<NamespaceMove>;
  /** Where namespace `namespace` was moved to, or `null` when it never was. */
  namespaceMovedTo(namespace: string): Promise<string | null>;
  /** Closes the database; idempotent. */
  close(): void;
}

/** A record with this id was forgotten (`forgetRecords`): saving it again is refused. */
export class ForgottenRecordError extends Error {
  /** Creates the error for `recordId`. */
  constructor(recordId: string) {
    super(`memory record ${recordId} was forgotten; it is not saved again`);
    this.name = "ForgottenRecordError";
  }
}

/** A record id that is already stored. */
export class DuplicateRecordError extends Error {
  /** Creates the error for `recordId`. */
  constructor(recordId: string) {
    super(`memory record ${recordId} already exists`);
    this.name = "DuplicateRecordError";
  }
}

/** One outbox row, resolved to what team sharing publishes for it now. */
export type TeamOutboxItem =
  & {
    /** Outbox sequence (acknowledge it once published). */
    seq: number;
    /** The record. */
    record_id: string;
    /** The shared project key (the namespace's project segment). */
    project_key: string;
  }
  & (
    | { kind: "put"; record: MemoryRecord }
    | { kind: "forgotten" }
    | { kind: "merged"; superseded_by: string }
    | { kind: "skip" }
  );

/** A teammate's change of one record, as pulled from the team database. */
export interface TeamChange {
  /** The record. */
  record_id: string;
  /** The team database's change sequence. */
  change_seq: number;
  /** `live`, or a tombstone: `forgotten` or `merged`. */
  state: "live" | "forgotten" | "merged";
  /** The record without its namespace (live only). */
  body: Record<string, unknown> | null;
  /** The survivor of a merge. */
  superseded_by: string | null;
  /** Who made the record (their namespace's actor). */
  origin_actor: string;
  /** The PostgreSQL role that first published it. */
  origin_role: string;
  /** The machine that first published it. */
  origin_client: string;
  /** The role of its last change. */
  changed_by_role: string;
  /** The machine of its last change. */
  changed_by_client: string;
}

/** What applying pulled changes did here. */
export interface TeamApplied {
  /** Records stored or updated. */
  saved: MemoryRecord[];
  /** Ids of records deleted (forgotten or merged elsewhere). */
  deleted: string[];
  /** Ids of changes refused: they named a record of another project here. */
  refused: string[];
  /**
   * How many of the given changes were gone through (all of them, unless the batch gave way to
   * another writer: the cursor then stands after the last one gone through).
   */
  done: number;
}

/** A batch of pulled changes of one project to apply (`TeamStore.teamApply`). */
export interface TeamApplyBatch {
  /** The project. */
  projectKey: string;
  /** The changes, in change order. */
  changes: readonly TeamChange[];
  /** Where the project's cursor stands once the whole batch is applied. */
  lastSeq: number;
  /**
   * Asked after each change: true ends the batch there (committed with the cursor after that
   * change), so a writer waiting for the lock gets it after one change, not after the batch.
   */
  giveWay?: () => boolean;
}

/** Who and which machine a pulled record came from. */
export interface TeamProvenance {
  /** The actor of the namespace it was made in. */
  actor: string;
  /** The PostgreSQL role that first published it. */
  role: string;
  /** The machine that first published it. */
  client: string;
  /** The role of its last change. */
  changed_by_role: string;
  /** The machine of its last change. */
  changed_by_client: string;
}

/** Local counts of team sharing. */
export interface TeamStatusCounts {
  /** Local changes not yet published. */
  backlog: number;
  /** Projects shared (granted and started here). */
  projects: number;
  /** Records here that came from teammates. */
  pulled_records: number;
}

/** The local store of team sharing (the SQLite storage implements it). */
export interface TeamStore {
  /** Turns change capture on or off (off keeps only the changes of projects shared before). */
  setTeamCapture(on: boolean): void;
  /** This machine's id in the team. */
  teamClientId(): string;
  /** Starts sharing a project (queues its existing records once); true the first time. */
  teamStartProject(projectKey: string): boolean;
  /** The oldest unpublished changes (after `afterSeq`, when given). */
  teamOutbox(options: { limit: number; afterSeq?: number }): TeamOutboxItem[];
  /** The projects shared here at some time, granted now or not. */
  teamStartedProjects(): string[];
  /** Removes published outbox rows. */
  teamAck(seqs: readonly number[]): void;
  /** The pull cursor of a project. */
  teamCursor(projectKey: string): number;
  /** The namespace this machine uses for a project, or null before it has worked on it. */
  teamLocalNamespace(projectKey: string): string | null;
  /**
   * Applies pulled changes of one project and moves its cursor, in one transaction, only ever
   * inside that project's namespaces.
   */
  teamApply(batch: TeamApplyBatch): TeamApplied;
  /** Removes what deleted records left in the full-text index and the WAL (after a pull). */
  scrubDeleted(): void;
  /**
   * Copies the WAL into the database as far as no reader needs it (a passive checkpoint: it
   * never waits for the write lock). The collector's own connection leaves this to the sync.
   */
  checkpointWal(): void;
  /** Backlog and counts. */
  teamCounts(): TeamStatusCounts;
  /** Provenance of pulled records. */
  teamProvenance(ids: readonly string[]): Map<string, TeamProvenance>;
}
