/**
 * Moving a project's rows from one namespace to another: how a project whose id used to be its
 * path's digest takes its memory along when its id becomes its repository's remote's.
 *
 * One transaction moves everything the namespace owns (events, queue rows, memory records with
 * their embeddings, retrieval logs, extraction runs, merge history, LLM usage), rewriting only
 * the namespace and project id columns: row ids, record ids and seqs stay, so nothing is copied
 * and nothing can be duplicated, and the full-text index (keyed by row id) needs no rebuild.
 * A move that found rows is recorded in `namespace_moves`, whose triggers (migration 8)
 * redirect every later write under the old namespace. Running it again moves whatever arrived since (nothing, once
 * the triggers are in place) and returns zeros. Interrupted, the transaction rolls back and
 * the next trigger does the whole move again.
 *
 * @module
 */
import type { NamespaceMove } from "./types.ts";
import type { Connection } from "./_connection.ts";

/** See `Storage.moveNamespace`. */
export async function moveNamespace(
  c: Connection,
  move: { from: string; to: string; fromProjectId: string; toProjectId: string },
): Promise<NamespaceMove> {
  await Promise.resolve();
  if (move.from === move.to) {
    throw new Error(`cannot move namespace ${move.from} onto itself; pass two namespaces`);
  }
  return c.transaction(() => {
    const chained = movedTo(c, move.to);
    if (chained !== null) {
      throw new Error(`namespace ${move.to} was itself moved to ${chained}; move into that one`);
    }
    const run = (sql: string, ...args: string[]) => Number(c.stmt(sql).run(...args).changes);
    const { from, to, toProjectId } = move;
    const counts: NamespaceMove = {
      events: run(
        "UPDATE events SET namespace = ?, project_id = ? WHERE namespace = ?",
        to,
        toProjectId,
        from,
      ),
      queue_rows: run(
        "UPDATE extraction_queue SET namespace = ?, project_id = ? WHERE namespace = ?",
        to,
        toProjectId,
        from,
      ),
      records: run("UPDATE memory_records SET namespace = ? WHERE namespace = ?", to, from),
      retrievals: run("UPDATE retrievals SET namespace = ? WHERE namespace = ?", to, from),
      runs: run(
        "UPDATE extraction_runs SET namespace = ?, project_id = ? WHERE namespace = ?",
        to,
        toProjectId,
        from,
      ),
      merges: run(
        // The replaced records' copies keep the namespace they will be restored into.
        `UPDATE record_merges SET namespace = ?1, replaced_json = (
          SELECT json_group_array(json(CASE WHEN json_extract(j.value, '$.namespace') = ?2
            THEN json_set(j.value, '$.namespace', ?1) ELSE j.value END))
          FROM json_each(record_merges.replaced_json) j)
        WHERE namespace = ?2`,
        to,
        from,
      ),
      llm_usage_rows: moveLlmUsage(c, move),
    };
    // Both namespaces' term spaces describe record sets that no longer exist: the collector
    // trains the merged namespace's anew.
    c.stmt("DELETE FROM term_spaces WHERE namespace IN (?, ?)").run(from, to);
    // Only a namespace that held something becomes an alias: recording every empty one would
    // send a later, unrelated project at the same path (re-created without a remote) into this
    // repository's memory.
    if (Object.values(counts).some((n) => n > 0)) {
      c.stmt(
        `INSERT INTO namespace_moves (from_namespace, to_namespace, from_project_id,
          to_project_id, moved_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(from_namespace) DO NOTHING`,
      ).run(from, to, move.fromProjectId, toProjectId, new Date().toISOString());
    }
    return counts;
  });
}

/** See `Storage.namespaceMovedTo`. */
export async function namespaceMovedTo(c: Connection, namespace: string): Promise<string | null> {
  await Promise.resolve();
  return movedTo(c, namespace);
}

function movedTo(c: Connection, namespace: string): string | null {
  const row = c.stmt("SELECT to_namespace FROM namespace_moves WHERE from_namespace = ?")
    .get(namespace) as { to_namespace: string } | undefined;
  return row?.to_namespace ?? null;
}

// LLM spend is kept per project id and day (no namespace): rows of the old id are added into
// the new id's (a day both ids spent on becomes one row) and deleted.
function moveLlmUsage(
  c: Connection,
  move: { fromProjectId: string; toProjectId: string },
): number {
  if (move.fromProjectId === move.toProjectId) return 0;
  const moved = Number(
    c.stmt(
      `INSERT INTO llm_usage (day, project_id, purpose, calls, chars_sent, chars_received)
      SELECT day, ?, purpose, calls, chars_sent, chars_received FROM llm_usage
      WHERE project_id = ? ORDER BY day, purpose
      ON CONFLICT(day, project_id, purpose) DO UPDATE SET calls = calls + excluded.calls,
        chars_sent = chars_sent + excluded.chars_sent,
        chars_received = chars_received + excluded.chars_received`,
    ).run(move.toProjectId, move.fromProjectId).changes,
  );
  c.stmt("DELETE FROM llm_usage WHERE project_id = ?").run(move.fromProjectId);
  return moved;
}
