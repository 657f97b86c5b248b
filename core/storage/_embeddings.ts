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

/**
 * `getEmbeddings`' query: one statement whatever the count (an `IN (?, ?, …)` list would
 * prepare one per length), parameters the ids as a JSON array, the namespace and the model.
 * CROSS JOIN keeps the ids the outer loop, one record_id index lookup each: left to itself, the
 * planner walked the model index over the whole table (~300 ms at 100k records, not ~2 ms).
 */
export const EMBEDDINGS_BY_ID_SQL = `SELECT m.record_id, m.embedding, m.embedding_dim
  FROM json_each(?) AS j CROSS JOIN memory_records AS m ON m.record_id = j.value
  WHERE m.namespace = ? AND m.embedding_model = ? AND m.embedding IS NOT NULL`;

/** See `Storage.getEmbeddings`. */
export async function getEmbeddings(
  c: Connection,
  namespace: string,
  options: { model: string; recordIds: readonly string[] },
): Promise<{ record_id: string; vector: Float32Array }[]> {
  await Promise.resolve();
  if (options.recordIds.length === 0) return [];
  const rows = c.stmt(EMBEDDINGS_BY_ID_SQL).all(
    JSON.stringify(options.recordIds),
    namespace,
    options.model,
  ) as {
    record_id: string;
    embedding: Uint8Array;
    embedding_dim: number;
  }[];
  return rows.map(decodeRow);
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

/**
 * The conditions of the records that need an embedding, each a range of one of the two indexes
 * of migration 11, so that taking (or counting) the next few reads only those: no vector yet;
 * a vector of a model that sorts before, or after, the current one; a vector with no model.
 * (`embedding_model IS NOT ?` as one condition would make SQLite walk every current vector.)
 */
export const NEEDS_EMBEDDING: readonly { where: string; order: string; model: boolean }[] = [
  { where: "embedding IS NULL", order: "embed_failures, created_at", model: false },
  {
    where: "embedding IS NOT NULL AND embedding_model < ?",
    order: "embedding_model, embed_failures, created_at",
    model: true,
  },
  {
    where: "embedding IS NOT NULL AND embedding_model > ?",
    order: "embedding_model, embed_failures, created_at",
    model: true,
  },
  {
    where: "embedding IS NOT NULL AND embedding_model IS NULL",
    order: "embed_failures, created_at",
    model: false,
  },
];

/** The ids of one part of {@linkcode NEEDS_EMBEDDING}, in the order the backfill takes them. */
export function neededIdsSql(part: { where: string; order: string }): string {
  return `SELECT id FROM memory_records WHERE ${part.where} AND embed_failures < ?
    ORDER BY ${part.order} LIMIT ?`;
}

/** How many records one part of {@linkcode NEEDS_EMBEDDING} holds, up to a limit. */
export function neededCountSql(part: { where: string }): string {
  return `SELECT COUNT(*) AS n FROM (SELECT 1 FROM memory_records
    WHERE ${part.where} AND embed_failures < ? LIMIT ?)`;
}

/** See `Storage.recordsNeedingEmbedding`. */
export async function recordsNeedingEmbedding(
  c: Connection,
  options: { model: string; limit: number; maxFailures: number },
): Promise<MemoryRecord[]> {
  await Promise.resolve();
  // Records without a vector first (new and edited ones), then those of another model; ids
  // first, then their rows, so nothing but the picked rows is read whole.
  const ids: number[] = [];
  for (const part of NEEDS_EMBEDDING) {
    if (ids.length >= options.limit) break;
    const rows = c.stmt(neededIdsSql(part)).all(
      ...(part.model ? [options.model] : []),
      options.maxFailures,
      options.limit - ids.length,
    ) as { id: number }[];
    for (const row of rows) ids.push(row.id);
  }
  if (ids.length === 0) return [];
  const rows = c.stmt(
    `SELECT id, ${RECORD_COLUMNS} FROM memory_records WHERE id IN (${
      ids.map(() => "?").join(",")
    })`,
  ).all(...ids) as (Row & { id: number })[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [recordFromRow(row)] : [];
  });
}

/** See `Storage.countRecordsNeedingEmbedding`. */
export async function countRecordsNeedingEmbedding(
  c: Connection,
  options: { model: string; limit: number; maxFailures: number },
): Promise<number> {
  await Promise.resolve();
  let n = 0;
  for (const part of NEEDS_EMBEDDING) {
    if (n >= options.limit) break;
    const row = c.stmt(neededCountSql(part)).get(
      ...(part.model ? [options.model] : []),
      options.maxFailures,
      options.limit - n,
    ) as { n: number };
    n += row.n;
  }
  return n;
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
