/**
 * The local side of team memory: the outbox the migration's triggers fill, pull cursors, and
 * applying teammates' changes (with their provenance) without echoing them into the outbox.
 *
 * @module
 */
import { MemoryRecordSchema } from "../schemas/mod.ts";
import { buildNamespace, projectIdFromNamespace } from "../project/mod.ts";
import { getRecordsSync, insertRecord, writeRecordContent } from "./_records.ts";
import type { Connection } from "./_connection.ts";
import type {
  TeamApplied,
  TeamChange,
  TeamOutboxItem,
  TeamProvenance,
  TeamStatusCounts,
} from "./types.ts";

function setCapture(c: Connection, on: boolean): void {
  c.stmt("UPDATE team_state SET value = ? WHERE key = 'capture'").run(on ? "1" : "0");
}

/** An outbox row of a project shared here before (it has a pull cursor). */
const OF_SHARED_PROJECT = `EXISTS (SELECT 1 FROM team_cursors
  WHERE team_outbox.namespace LIKE '/actor/%/project/' || team_cursors.project_key || '/')`;

/**
 * Turns change capture on (a team is configured) or off (none is). Off keeps capturing the
 * changes of projects this machine has shared (so what is made, edited or forgotten while left is
 * published after a re-join), and empties the rest of the outbox (nothing will publish it: a
 * project shared for the first time publishes all its records then). Idempotent.
 */
export function setTeamCapture(c: Connection, on: boolean): void {
  c.transaction(() => {
    const shared = c.stmt("SELECT 1 FROM team_cursors LIMIT 1").get() !== undefined;
    setCapture(c, on || shared);
    if (!on) c.stmt(`DELETE FROM team_outbox WHERE NOT ${OF_SHARED_PROJECT}`).run();
  });
}

/** This machine's id in the team (random, made once, kept in the database). */
export function teamClientId(c: Connection): string {
  return c.transaction(() => {
    const row = c.stmt("SELECT value FROM team_state WHERE key = 'client_id'").get() as
      | { value: string }
      | undefined;
    if (row) return row.value;
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    const id = `m_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    c.stmt("INSERT INTO team_state (key, value) VALUES ('client_id', ?)").run(id);
    return id;
  });
}

const PROJECT_NAMESPACES = "namespace LIKE '/actor/%/project/' || ? || '/'";

/**
 * Starts sharing a project: the first time a project is granted, every record of it already
 * stored here goes into the outbox (and its pull cursor starts at 0). Returns true that time.
 */
export function teamStartProject(c: Connection, projectKey: string): boolean {
  return c.transaction(() => {
    if (c.stmt("SELECT 1 FROM team_cursors WHERE project_key = ?").get(projectKey)) return false;
    c.stmt("INSERT INTO team_cursors (project_key, last_seq) VALUES (?, 0)").run(projectKey);
    c.stmt(
      `INSERT INTO team_outbox (record_id, namespace, op)
      SELECT record_id, namespace, 'put' FROM memory_records WHERE ${PROJECT_NAMESPACES}
      ORDER BY id`,
    ).run(projectKey);
    return true;
  });
}

/**
 * The oldest outbox rows (after `afterSeq`: rows a publish keeps for later are passed over),
 * each resolved to what is to be published now.
 */
export function teamOutbox(
  c: Connection,
  options: { limit: number; afterSeq?: number },
): TeamOutboxItem[] {
  const rows = c.stmt(
    "SELECT seq, record_id, namespace, op FROM team_outbox WHERE seq > ? ORDER BY seq LIMIT ?",
  ).all(options.afterSeq ?? 0, options.limit) as {
    seq: number;
    record_id: string;
    namespace: string;
    op: string;
  }[];
  return rows.map((row): TeamOutboxItem => {
    const base = {
      seq: row.seq,
      record_id: row.record_id,
      project_key: projectIdFromNamespace(row.namespace) ?? "",
    };
    const [record] = getRecordsSync(c, [row.record_id]);
    if (row.op === "put") {
      // Published as it is now: a later edit or a delete has its own row.
      return record ? { ...base, kind: "put", record } : { ...base, kind: "skip" };
    }
    if (record) return { ...base, kind: "skip" };
    if (c.stmt("SELECT 1 FROM forgotten_records WHERE record_id = ?").get(row.record_id)) {
      return { ...base, kind: "forgotten" };
    }
    const merge = c.stmt(
      `SELECT summary_id FROM record_merges, json_each(record_merges.replaced_ids_json)
      WHERE json_each.value = ? ORDER BY record_merges.id DESC LIMIT 1`,
    ).get(row.record_id) as { summary_id: string } | undefined;
    // A record deleted without a merge is gone for good: a tombstone too.
    return merge
      ? { ...base, kind: "merged", superseded_by: merge.summary_id }
      : { ...base, kind: "forgotten" };
  });
}

/** Removes published outbox rows. */
export function teamAck(c: Connection, seqs: readonly number[]): void {
  c.transaction(() => {
    const del = c.stmt("DELETE FROM team_outbox WHERE seq = ?");
    for (const seq of seqs) del.run(seq);
  });
}

/** Backlog and sharing counts for status. */
export function teamCounts(c: Connection): TeamStatusCounts {
  const one = (sql: string) => (c.stmt(sql).get() as { n: number }).n;
  return {
    backlog: one("SELECT count(*) AS n FROM team_outbox"),
    projects: one("SELECT count(*) AS n FROM team_cursors"),
    pulled_records: one("SELECT count(*) AS n FROM team_provenance"),
  };
}

/** The projects shared here at some time (they have a pull cursor), granted now or not. */
export function teamStartedProjects(c: Connection): string[] {
  return (c.stmt("SELECT project_key FROM team_cursors ORDER BY project_key").all() as {
    project_key: string;
  }[]).map((r) => r.project_key);
}

/** The pull cursor of a project (0 before its first pull). */
export function teamCursor(c: Connection, projectKey: string): number {
  const row = c.stmt("SELECT last_seq FROM team_cursors WHERE project_key = ?").get(projectKey) as
    | { last_seq: number }
    | undefined;
  return row?.last_seq ?? 0;
}

/**
 * The namespace this machine uses for a project (its newest record's, else an event's), or null
 * before it has worked on the project.
 */
export function teamLocalNamespace(c: Connection, projectKey: string): string | null {
  const row = (c.stmt(
    `SELECT namespace FROM memory_records WHERE ${PROJECT_NAMESPACES}
    ORDER BY id DESC LIMIT 1`,
  ).get(projectKey) ??
    c.stmt("SELECT namespace FROM events WHERE project_id = ? LIMIT 1").get(projectKey)) as
      | { namespace: string }
      | undefined;
  return row?.namespace ?? null;
}

function localNamespace(c: Connection, projectKey: string, change: TeamChange): string {
  return teamLocalNamespace(c, projectKey) ?? buildNamespace(change.origin_actor, projectKey);
}

/**
 * Applies teammates' changes of one project and moves its cursor, in one transaction, with
 * capture off (a pulled change is not published back). A tombstone always wins; a live record
 * never brings back one forgotten here, and never overwrites a local change not yet published.
 */
export function teamApply(
  c: Connection,
  batch: { projectKey: string; changes: readonly TeamChange[]; lastSeq: number },
): TeamApplied {
  const out: TeamApplied = { saved: [], deleted: [] };
  c.transaction(() => {
    setCapture(c, false);
    try {
      for (const change of batch.changes) applyOne(c, batch.projectKey, change, out);
      c.stmt(
        `INSERT INTO team_cursors (project_key, last_seq) VALUES (?, ?)
        ON CONFLICT (project_key) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)`,
      ).run(batch.projectKey, batch.lastSeq);
    } finally {
      setCapture(c, true);
    }
  });
  if (out.deleted.length > 0) {
    // Forget means gone: no byte of a forgotten record left in the index or the WAL.
    c.db.exec("INSERT INTO memory_records_fts(memory_records_fts) VALUES ('optimize')");
    c.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  return out;
}

function applyOne(c: Connection, projectKey: string, change: TeamChange, out: TeamApplied): void {
  const id = change.record_id;
  if (change.state !== "live") {
    c.stmt("DELETE FROM team_outbox WHERE record_id = ?").run(id);
    const n = Number(c.stmt("DELETE FROM memory_records WHERE record_id = ?").run(id).changes);
    c.stmt("DELETE FROM record_merges WHERE summary_id = ?").run(id);
    if (change.state === "forgotten") {
      c.stmt("INSERT OR IGNORE INTO forgotten_records (record_id, forgotten_at) VALUES (?, ?)")
        .run(id, new Date().toISOString());
    }
    if (n > 0) out.deleted.push(id);
    return;
  }
  if (c.stmt("SELECT 1 FROM forgotten_records WHERE record_id = ?").get(id)) return;
  if (c.stmt("SELECT 1 FROM team_outbox WHERE record_id = ?").get(id)) return;
  const [current] = getRecordsSync(c, [id]);
  const record = MemoryRecordSchema.parse({
    ...change.body,
    record_id: id,
    namespace: current?.namespace ?? localNamespace(c, projectKey, change),
  });
  if (!current) {
    insertRecord(c, record);
  } else {
    if (JSON.stringify(current) === JSON.stringify(record)) return provenance(c, change);
    writeRecordContent(c, record, { textChanged: true });
  }
  provenance(c, change);
  out.saved.push(record);
}

function provenance(c: Connection, change: TeamChange): void {
  c.stmt(
    `INSERT INTO team_provenance (record_id, actor, role, client, changed_by_role,
      changed_by_client, change_seq) VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (record_id) DO UPDATE SET actor = excluded.actor, role = excluded.role,
      client = excluded.client, changed_by_role = excluded.changed_by_role,
      changed_by_client = excluded.changed_by_client, change_seq = excluded.change_seq`,
  ).run(
    change.record_id,
    change.origin_actor,
    change.origin_role,
    change.origin_client,
    change.changed_by_role,
    change.changed_by_client,
    change.change_seq,
  );
}

/** Who and which machine pulled records came from (records made here have no entry). */
export function teamProvenance(
  c: Connection,
  ids: readonly string[],
): Map<string, TeamProvenance> {
  const stmt = c.stmt(
    `SELECT actor, role, client, changed_by_role, changed_by_client FROM team_provenance
    WHERE record_id = ?`,
  );
  const out = new Map<string, TeamProvenance>();
  for (const id of ids) {
    const row = stmt.get(id) as TeamProvenance | undefined;
    if (row) out.set(id, { ...row });
  }
  return out;
}
