/**
 * A namespace filled with one or more rows of every kind the storage keeps for a project, and
 * a count of them: what the namespace-move tests (storage and collector) compare before and
 * after.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { ExtractionRun, Storage } from "../storage/mod.ts";
import { makeEvent, makeRecord } from "./fixtures.ts";

/** Row counts of one namespace (and its project id), per table. */
export interface NamespaceRows {
  /** Events. */
  events: number;
  /** Extraction queue rows. */
  queue_rows: number;
  /** Memory records. */
  records: number;
  /** Records with a stored embedding. */
  embeddings: number;
  /** Retrieval log rows. */
  retrievals: number;
  /** Retrieval → record links of those rows. */
  retrieval_links: number;
  /** Extraction runs. */
  runs: number;
  /** Merge history rows. */
  merges: number;
  /** Sum of LLM calls recorded for the project id. */
  llm_calls: number;
}

/** What {@linkcode seedNamespace} wrote. */
export interface SeededNamespace {
  /** Ids of the records stored (not forgotten, not merged away). */
  recordIds: string[];
  /** Id of a record that was forgotten (its tombstone must survive a move). */
  forgottenId: string;
  /** Ids of the events stored. */
  eventIds: string[];
}

/**
 * Writes, through the storage's own methods, events (queued and history), records with and
 * without an embedding, a reconciliation merge, a retrieval log, an extraction run, LLM usage
 * and a forgotten record, all under `namespace` / `projectId`.
 */
export async function seedNamespace(
  storage: Storage,
  target: { namespace: string; projectId: string; projectPath?: string },
): Promise<SeededNamespace> {
  const { namespace, projectId } = target;
  const source = {
    surface: "claude-code" as const,
    version: "test",
    client_id: "seed",
    ...(target.projectPath === undefined ? {} : { project_path: target.projectPath }),
  };
  const events = Array.from({ length: 4 }, (_, i) =>
    makeEvent({
      namespace,
      source,
      body: { type: "text", content: `seeded prompt ${i} about the payments retry policy` },
    }));
  for (const [i, event] of events.entries()) {
    await storage.ingestEvent(event, { project_id: projectId, enqueue: i < 3 });
  }
  const [first] = await storage.snapshotQueue(projectId, { limit: 1 });
  const kept = makeRecord({ namespace, title: "payments client retries on 409, never on 500" });
  const merged = makeRecord({ namespace, title: "retry on conflict" });
  const plain = makeRecord({ namespace, title: "integration tests run with --runInBand" });
  const forgotten = makeRecord({ namespace, title: "a record the user forgot" });
  await storage.putRecord(kept, { embedding: { model: "test@1", vector: unitVector(0) } });
  await storage.putRecord(merged);
  await storage.putRecord(plain, { embedding: { model: "test@1", vector: unitVector(1) } });
  await storage.putRecord(forgotten);
  await storage.forgetRecords([forgotten.record_id]);
  const summary = makeRecord({ namespace, title: "retry policy (merged)" });
  await storage.commitReconciliation({
    consumedSeqs: [first.seq],
    put: [{ record: summary }],
    deleteIds: [merged.record_id],
    merges: [{ summary_id: summary.record_id, replaced: [merged] }],
  });
  await storage.logRetrieval({
    event_id: events[0].event_id,
    namespace,
    query: "payments retry",
    results: [{ record_id: kept.record_id, score: 1 }, {
      record_id: summary.record_id,
      score: 0.5,
    }],
    latency_ms: 3,
    tokens: 40,
    outcome: "ok",
  });
  await storage.recordRun(makeRun({ project_id: projectId, namespace }));
  await storage.addLlmUsage({
    project_id: projectId,
    purpose: "extract",
    chars_sent: 100,
    chars_received: 20,
    calls: 2,
  });
  return {
    recordIds: [kept.record_id, plain.record_id, summary.record_id],
    forgottenId: forgotten.record_id,
    eventIds: events.map((e) => e.event_id),
  };
}

/** Counts every kind of row `namespace` (project id `projectId`) holds. */
export function countNamespaceRows(
  db: DatabaseSync,
  target: { namespace: string; projectId: string },
): NamespaceRows {
  const n = (sql: string, arg = target.namespace) =>
    Number((db.prepare(sql).get(arg) as { n: number | null }).n ?? 0);
  return {
    events: n("SELECT count(*) AS n FROM events WHERE namespace = ?"),
    queue_rows: n("SELECT count(*) AS n FROM extraction_queue WHERE namespace = ?"),
    records: n("SELECT count(*) AS n FROM memory_records WHERE namespace = ?"),
    embeddings: n(
      "SELECT count(*) AS n FROM memory_records WHERE namespace = ? AND embedding IS NOT NULL",
    ),
    retrievals: n("SELECT count(*) AS n FROM retrievals WHERE namespace = ?"),
    retrieval_links: n(
      `SELECT count(*) AS n FROM retrieval_records rr JOIN retrievals r ON r.id = rr.retrieval_id
      WHERE r.namespace = ?`,
    ),
    runs: n("SELECT count(*) AS n FROM extraction_runs WHERE namespace = ?"),
    merges: n("SELECT count(*) AS n FROM record_merges WHERE namespace = ?"),
    llm_calls: n("SELECT sum(calls) AS n FROM llm_usage WHERE project_id = ?", target.projectId),
  };
}

/** Every count zero: what a moved-away namespace holds. */
export const NO_ROWS: NamespaceRows = Object.freeze({
  events: 0,
  queue_rows: 0,
  records: 0,
  embeddings: 0,
  retrievals: 0,
  retrieval_links: 0,
  runs: 0,
  merges: 0,
  llm_calls: 0,
});

/** Adds two counts field by field. */
export function addRows(a: NamespaceRows, b: NamespaceRows): NamespaceRows {
  const out = { ...a };
  for (const key of Object.keys(out) as (keyof NamespaceRows)[]) out[key] += b[key];
  return out;
}

/** A finished heuristic extraction run of one project; fields in `overrides` win. */
export function makeRun(
  overrides: Pick<ExtractionRun, "project_id" | "namespace"> & Partial<ExtractionRun>,
): ExtractionRun {
  return {
    started_at: new Date().toISOString(),
    duration_ms: 5,
    strategy: "heuristic",
    outcome: "ok",
    entries: 1,
    chunks: 1,
    records: 1,
    attempts: 0,
    chars_sent: 0,
    chars_received: 0,
    ...overrides,
  };
}

function unitVector(axis: number): Float32Array {
  const v = new Float32Array(8);
  v[axis] = 1;
  return v;
}
