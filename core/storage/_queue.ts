/**
 * The extraction queue: depths, snapshots, and the commits that consume it (extraction and
 * reconciliation chunks, with their merge history).
 *
 * @module
 */
import type { QueueEntry } from "../schemas/mod.ts";
import {
  type CommitExtractionResult,
  type MergeRow,
  type NewQueueEntry,
  type QueueDepth,
  type ReconciliationCommit,
  type RecordWithEmbedding,
  StaleCommitError,
} from "./types.ts";
import { queueEntryFromRow, type Row, whereClause } from "./_rows.ts";
import { insertRecord } from "./_records.ts";
import type { Connection } from "./_connection.ts";

const encoder = new TextEncoder();

/** Inserts one queue row (inside the caller's transaction); returns its seq. */
export function insertQueueRow(
  c: Connection,
  entry: NewQueueEntry,
  bodyJson = JSON.stringify(entry.body),
): number {
  const result = c.stmt(
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

/** See `Storage.queueDepths`. */
export async function queueDepths(c: Connection): Promise<QueueDepth[]> {
  await Promise.resolve();
  return c.stmt(
    `SELECT project_id, min(namespace) AS namespace, count(*) AS rows, sum(bytes) AS bytes
    FROM extraction_queue GROUP BY project_id ORDER BY project_id`,
  ).all() as unknown as QueueDepth[];
}

/** See `Storage.snapshotQueue`. */
export async function snapshotQueue(
  c: Connection,
  projectId: string,
  options: { maxSeq?: number; limit?: number } = {},
): Promise<QueueEntry[]> {
  await Promise.resolve();
  const rows = c.stmt(
    `SELECT * FROM extraction_queue WHERE project_id = ? AND seq <= ? ORDER BY seq LIMIT ?`,
  ).all(projectId, options.maxSeq ?? Number.MAX_SAFE_INTEGER, options.limit ?? -1) as Row[];
  return rows.map(queueEntryFromRow);
}

/**
 * A stored record identical to a new one (every field a reader sees), found through the
 * (namespace, title) index: one look per record, whatever the namespace's size (migration 13).
 */
export const IDENTICAL_RECORD_SQL =
  `SELECT record_id FROM memory_records WHERE namespace = ? AND observation_type = ?
  AND title = ? AND summary = ? AND facts_json = ? AND concepts_json = ?
  AND files_touched_json = ? LIMIT 1`;

/** See `Storage.commitExtraction`. */
export async function commitExtraction(
  c: Connection,
  options: {
    consumedSeqs: readonly number[];
    records: RecordWithEmbedding[];
    skipIdentical?: boolean;
  },
): Promise<CommitExtractionResult> {
  await Promise.resolve();
  return c.transaction(() => {
    // Every field a reader sees, compared as stored: the same observations extracted again (the
    // heuristic extractor is deterministic) give the same record.
    const identical = c.stmt(IDENTICAL_RECORD_SQL);
    const skipped: string[] = [];
    for (const { record, embedding } of options.records) {
      const twin = options.skipIdentical && identical.get(
        record.namespace,
        record.observation_type,
        record.title,
        record.summary,
        JSON.stringify(record.facts),
        JSON.stringify(record.concepts),
        JSON.stringify(record.files_touched),
      );
      if (twin) skipped.push(record.record_id);
      else insertRecord(c, record, embedding);
    }
    const del = c.stmt("DELETE FROM extraction_queue WHERE seq = ?");
    const missingSeqs: number[] = [];
    for (const seq of new Set(options.consumedSeqs)) {
      if (Number(del.run(seq).changes) === 0) missingSeqs.push(seq);
    }
    if (missingSeqs.length > 0) throw new StaleCommitError({ records: [], seqs: missingSeqs });
    return { skipped };
  });
}

/** See `Storage.commitReconciliation`. */
export async function commitReconciliation(
  c: Connection,
  commit: ReconciliationCommit,
): Promise<void> {
  await Promise.resolve();
  c.transaction(() => {
    const missingRecords: string[] = [];
    // A record edited while the judge was deciding is not the record the judge merged: treat
    // it as gone, so the merge is abandoned rather than the edit silently lost.
    const current = c.stmt(
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
    const delRecord = c.stmt("DELETE FROM memory_records WHERE record_id = ?");
    for (const id of new Set(commit.deleteIds)) {
      if (Number(delRecord.run(id).changes) === 0) missingRecords.push(id);
    }
    const delSeq = c.stmt("DELETE FROM extraction_queue WHERE seq = ?");
    const missingSeqs: number[] = [];
    for (const seq of new Set(commit.consumedSeqs)) {
      if (Number(delSeq.run(seq).changes) === 0) missingSeqs.push(seq);
    }
    if (missingRecords.length > 0 || missingSeqs.length > 0) {
      throw new StaleCommitError({ records: missingRecords, seqs: missingSeqs });
    }
    for (const { record, embedding } of commit.put) insertRecord(c, record, embedding);
    const merged = c.stmt(
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
export async function listMerges(
  c: Connection,
  options: { namespace?: string; summary_id?: string; limit: number },
): Promise<MergeRow[]> {
  await Promise.resolve();
  const { clause, params } = whereClause([
    ["namespace = ?", options.namespace],
    ["summary_id = ?", options.summary_id],
  ]);
  const rows = c.stmt(`SELECT * FROM record_merges ${clause} ORDER BY id DESC LIMIT ?`)
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
export async function replaceQueueRows(
  c: Connection,
  options: { removeSeqs: readonly number[]; entries: NewQueueEntry[] },
): Promise<number[]> {
  await Promise.resolve();
  return c.transaction(() => {
    const del = c.stmt("DELETE FROM extraction_queue WHERE seq = ?");
    let removed = 0;
    for (const seq of options.removeSeqs) removed += Number(del.run(seq).changes);
    if (removed !== options.removeSeqs.length) {
      // Another run consumed some rows meanwhile: replacing would resurrect them.
      throw new Error("queue rows changed during compaction; nothing was replaced");
    }
    return options.entries.map((entry) => insertQueueRow(c, entry));
  });
}
