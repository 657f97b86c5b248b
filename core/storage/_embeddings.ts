/**
 * Embeddings stored with their records: write, list per model, and what still needs one.
 *
 * @module
 */
import type { MemoryRecord } from "../schemas/mod.ts";
import { decodeEmbedding, encodeEmbedding, freeNow } from "./embedding_blob.ts";
import type { EmbeddingPage, StoredEmbedding } from "./types.ts";
import { RECORD_COLUMNS, recordFromRow, type Row } from "./_rows.ts";
import type { Connection } from "./_connection.ts";

/** See `Storage.putEmbeddings`. */
export async function putEmbeddings(
  c: Connection,
  rows: readonly { record_id: string; embedding: StoredEmbedding }[],
): Promise<void> {
  await Promise.resolve();
  c.transaction(() => {
    for (const { record_id, embedding } of rows) writeEmbedding(c, record_id, embedding);
  });
}

function writeEmbedding(c: Connection, recordId: string, embedding: StoredEmbedding): void {
  c.stmt(
    `UPDATE memory_records SET embedding = ?, embedding_model = ?, embedding_dim = ?,
      embed_failures = 0 WHERE record_id = ?`,
  ).run(encodeEmbedding(embedding.vector), embedding.model, embedding.vector.length, recordId);
}

/** See `Storage.listEmbeddings`. */
export async function listEmbeddings(
  c: Connection,
  namespace: string,
  options: { model: string },
): Promise<{ record_id: string; vector: Float32Array }[]> {
  await Promise.resolve();
  const rows = c.stmt(
    `SELECT record_id, embedding, embedding_dim FROM memory_records
    WHERE namespace = ? AND embedding_model = ? AND embedding IS NOT NULL`,
  ).all(namespace, options.model) as {
    record_id: string;
    embedding: Uint8Array;
    embedding_dim: number;
  }[];
  return rows.map(decodeRow);
}

/** A row's vector; its blob is freed at once (see `freeNow`: nothing else reads it). */
function decodeRow(r: { record_id: string; embedding: Uint8Array; embedding_dim: number }): {
  record_id: string;
  vector: Float32Array;
} {
  const vector = decodeEmbedding(r.embedding, { dim: r.embedding_dim, recordId: r.record_id });
  freeNow(r.embedding);
  return { record_id: r.record_id, vector };
}

/** See `Storage.listEmbeddingPage`. */
export async function listEmbeddingPage(
  c: Connection,
  namespace: string,
  options: { model: string; after: number; limit: number },
): Promise<EmbeddingPage> {
  await Promise.resolve();
  // By row id: the namespace index holds (namespace, rowid), so each page is a range scan with
  // no sort (ordering by record_id sorted every remaining row, blobs included, per page).
  const rows = c.stmt(
    `SELECT id, record_id, embedding, embedding_dim FROM memory_records
    WHERE namespace = ? AND id > ? AND embedding_model = ? AND embedding IS NOT NULL
    ORDER BY id LIMIT ?`,
  ).all(namespace, options.after, options.model, options.limit) as {
    id: number;
    record_id: string;
    embedding: Uint8Array;
    embedding_dim: number;
  }[];
  const page: EmbeddingPage = {
    rows: rows.map(decodeRow),
    next: rows.length < options.limit ? null : rows[rows.length - 1].id,
  };
  if (options.after === 0) {
    page.total = rows.length < options.limit ? rows.length : (c.stmt(
      `SELECT count(*) AS n FROM memory_records
      WHERE namespace = ? AND embedding_model = ? AND embedding IS NOT NULL`,
    ).get(namespace, options.model) as { n: number }).n;
  }
  return page;
}

/** See `Storage.recordsNeedingEmbedding`. */
export async function recordsNeedingEmbedding(
  c: Connection,
  options: { model: string; limit: number; maxFailures: number },
): Promise<MemoryRecord[]> {
  await Promise.resolve();
  // Ids first, then their rows: sorting whole rows (summaries, facts) of every record lacking
  // a vector took 13 ms per backfill batch at 8.5k records, on the thread that serves ingest.
  return (c.stmt(
    `SELECT ${RECORD_COLUMNS} FROM memory_records WHERE id IN (
      SELECT id FROM memory_records
      WHERE (embedding IS NULL OR embedding_model IS NOT ?) AND embed_failures < ?
      ORDER BY embed_failures, created_at LIMIT ?)
    ORDER BY embed_failures, created_at`,
  ).all(options.model, options.maxFailures, options.limit) as Row[]).map(recordFromRow);
}

/** See `Storage.countRecordsNeedingEmbedding`. */
export async function countRecordsNeedingEmbedding(
  c: Connection,
  options: { model: string; limit: number; maxFailures: number },
): Promise<number> {
  await Promise.resolve();
  const row = c.stmt(
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM memory_records
    WHERE (embedding IS NULL OR embedding_model IS NOT ?) AND embed_failures < ? LIMIT ?)`,
  ).get(options.model, options.maxFailures, options.limit) as { n: number };
  return row.n;
}

/** See `Storage.markEmbeddingFailed`. */
export async function markEmbeddingFailed(
  c: Connection,
  recordId: string,
): Promise<void> {
  await Promise.resolve();
  c.stmt("UPDATE memory_records SET embed_failures = embed_failures + 1 WHERE record_id = ?")
    .run(recordId);
}
