/**
 * Commit records stored before the identity rule (`core/project/record_identity.ts`) had ids
 * derived from the repository's root commits and the sha: the same id in every project that
 * held the repository (so only the first got any), and another id after a shallow clone was
 * unshallowed (so its commits were stored twice). This step gives each the rule's id, so a
 * later import finds it present, and keeps one row where two stood for one commit of a project.
 *
 * Run once, as a migration's data step, inside its transaction.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { RECORD_ID_PREFIX } from "../ids.ts";
import { canonicalRecordId } from "../project/mod.ts";

interface CommitRow {
  id: number;
  record_id: string;
  namespace: string;
  strategy: string;
  facts_json: string;
  created_at: string;
}

/** What {@linkcode rekeyCommitRecords} did. */
export interface RekeyReport {
  /** Records given the rule's id. */
  renamed: number;
  /** Second copies of one commit in one project, deleted. */
  duplicates: number;
}

/** Gives every commit record the id the identity rule says; see the module doc. */
export function rekeyCommitRecords(db: DatabaseSync): RekeyReport {
  const report: RekeyReport = { renamed: 0, duplicates: 0 };
  const rows = db.prepare(
    `SELECT id, record_id, namespace, strategy, facts_json, created_at FROM memory_records
    WHERE strategy = 'git-commit' ORDER BY id`,
  ).all() as unknown as CommitRow[];
  if (rows.length === 0) return report;
  // Referencing rows (retrieval_records) follow within this transaction; checked at its commit.
  db.exec("PRAGMA defer_foreign_keys = ON");
  const capture = (db.prepare("SELECT value FROM team_state WHERE key = 'capture'").get() as
    | { value: string }
    | undefined)?.value === "1";
  const exists = db.prepare("SELECT 1 FROM memory_records WHERE record_id = ?");
  const outbox = db.prepare(
    "INSERT INTO team_outbox (record_id, namespace, op) VALUES (?, ?, ?)",
  );
  const renames: [string, string][] = [];
  for (const row of rows) {
    const wanted = canonicalRecordId({
      record_id: row.record_id,
      namespace: row.namespace,
      strategy: row.strategy,
      facts: JSON.parse(row.facts_json),
      created_at: row.created_at,
    });
    if (wanted === row.record_id) continue;
    if (exists.get(wanted)) {
      // The same commit of the same project, stored twice (a shallow clone, unshallowed).
      // With team capture on, the delete trigger publishes the old id's tombstone.
      db.prepare("DELETE FROM memory_records WHERE id = ?").run(row.id);
      report.duplicates++;
      continue;
    }
    db.prepare(
      `UPDATE memory_records SET record_id = ?, source_event_ids_json = ? WHERE id = ?`,
    ).run(wanted, JSON.stringify([wanted.slice(RECORD_ID_PREFIX.length)]), row.id);
    renames.push([row.record_id, wanted]);
    if (capture) {
      // Teammates drop the old id and take the new one (the update of the id fires no trigger).
      outbox.run(row.record_id, row.namespace, "gone");
      outbox.run(wanted, row.namespace, "put");
    }
    report.renamed++;
  }
  for (const [from, to] of renames) {
    for (
      const sql of [
        "UPDATE retrieval_records SET record_id = ? WHERE record_id = ?",
        "UPDATE team_provenance SET record_id = ? WHERE record_id = ?",
        "UPDATE record_merges SET summary_id = ? WHERE summary_id = ?",
      ]
    ) db.prepare(sql).run(to, from);
    db.prepare(
      `UPDATE record_merges SET replaced_ids_json = (SELECT json_group_array(
        CASE WHEN value = ? THEN ? ELSE value END) FROM json_each(replaced_ids_json))
      WHERE EXISTS (SELECT 1 FROM json_each(replaced_ids_json) WHERE value = ?)`,
    ).run(from, to, from);
  }
  return report;
}
