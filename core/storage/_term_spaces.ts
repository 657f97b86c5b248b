/**
 * Term spaces (`core/search/record_space.ts`) stored per namespace, and the record text they are
 * trained from, read in pages so a large namespace never blocks the connection for long.
 *
 * @module
 */
import { recordSpaceDoc, type TermSpaceDoc } from "../search/mod.ts";
import type { StoredTermSpace, StoredTermSpaceInfo } from "./types.ts";
import type { Connection } from "./_connection.ts";

/** See `Storage.termSpaceDocs`. */
export async function termSpaceDocs(
  c: Connection,
  namespace: string,
  options: { after: number; limit: number; newest?: number },
): Promise<{ docs: TermSpaceDoc[]; last: number }> {
  await Promise.resolve();
  let after = options.after;
  if (options.newest !== undefined) {
    // The row just older than the namespace's `newest` records: start after it.
    const edge = c.stmt(
      "SELECT id FROM memory_records WHERE namespace = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
    ).get(namespace, options.newest) as { id: number } | undefined;
    if (edge !== undefined) after = Math.max(after, edge.id);
  }
  const rows = c.stmt(
    `SELECT id, title, summary, facts_json, files_touched_json FROM memory_records
    WHERE namespace = ? AND id > ? ORDER BY id LIMIT ?`,
  ).all(namespace, after, options.limit) as {
    id: number;
    title: string;
    summary: string;
    facts_json: string;
    files_touched_json: string;
  }[];
  return {
    docs: rows.map((r) =>
      recordSpaceDoc({
        title: r.title,
        summary: r.summary,
        facts: JSON.parse(r.facts_json) as string[],
        files_touched: JSON.parse(r.files_touched_json) as string[],
      })
    ),
    last: rows.at(-1)?.id ?? after,
  };
}

/** See `Storage.countRecords`. */
export async function countRecords(c: Connection, namespace: string): Promise<number> {
  await Promise.resolve();
  return (c.stmt("SELECT count(*) AS n FROM memory_records WHERE namespace = ?")
    .get(namespace) as { n: number }).n;
}

/** See `Storage.getTermSpace`. */
export async function getTermSpace(
  c: Connection,
  namespace: string,
): Promise<StoredTermSpace | null> {
  await Promise.resolve();
  const row = c.stmt(
    `SELECT namespace, version, record_count, trained_at, data FROM term_spaces
    WHERE namespace = ?`,
  ).get(namespace) as StoredTermSpace | undefined;
  return row ?? null;
}

/** See `Storage.putTermSpace`. */
export async function putTermSpace(
  c: Connection,
  space: StoredTermSpace,
  options: { unlessForgottenSince?: string } = {},
): Promise<boolean> {
  await Promise.resolve();
  return c.transaction(() => {
    if (options.unlessForgottenSince !== undefined) {
      // A record forgotten while the space was trained may be in it: never store that space.
      const forgotten = c.stmt(
        "SELECT 1 AS hit FROM forgotten_records WHERE forgotten_at >= ? LIMIT 1",
      ).get(options.unlessForgottenSince);
      if (forgotten !== undefined) return false;
    }
    c.stmt(
      `INSERT INTO term_spaces (namespace, version, record_count, trained_at, data)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(namespace) DO UPDATE SET version = excluded.version,
        record_count = excluded.record_count, trained_at = excluded.trained_at,
        data = excluded.data`,
    ).run(space.namespace, space.version, space.record_count, space.trained_at, space.data);
    return true;
  });
}

/** See `Storage.listTermSpaces`. */
export async function listTermSpaces(c: Connection): Promise<StoredTermSpaceInfo[]> {
  await Promise.resolve();
  return (c.stmt(
    `SELECT namespace, version, record_count, trained_at, length(data) AS bytes FROM term_spaces
    ORDER BY namespace`,
  ).all() as unknown as StoredTermSpaceInfo[]).map((r) => ({ ...r }));
}
