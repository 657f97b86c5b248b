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
  TeamApplyBatch,
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

const ACTOR_PREFIX = "/actor/";

/**
 * The namespaces of `projectKey` that `table` holds rows of, found through the table's namespace
 * index: one jump per actor (`/actor/<actor>/project/<key>/` is looked up directly), so the cost
 * depends on how many actors wrote here, never on how many rows there are.
 */
function projectNamespaces(
  c: Connection,
  table: "memory_records" | "events",
  projectKey: string,
): string[] {
  const next = c.stmt(
    `SELECT namespace FROM ${table} WHERE namespace >= ? ORDER BY namespace LIMIT 1`,
  );
  const has = c.stmt(`SELECT 1 FROM ${table} WHERE namespace = ? LIMIT 1`);
  const out: string[] = [];
  let from = ACTOR_PREFIX;
  for (;;) {
    const row = next.get(from) as { namespace: string } | undefined;
    if (!row || !row.namespace.startsWith(ACTOR_PREFIX)) return out;
    const actor = row.namespace.split("/")[2];
    const namespace = buildNamespace(actor, projectKey);
    if (has.get(namespace)) out.push(namespace);
    // "0" sorts right after "/": the first namespace of the next actor.
    from = `/actor/${actor}0`;
  }
}

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
      SELECT record_id, namespace, 'put' FROM memory_records
      WHERE namespace IN (SELECT value FROM json_each(?)) ORDER BY id`,
    ).run(JSON.stringify(projectNamespaces(c, "memory_records", projectKey)));
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
 * The namespace this machine uses for a project (the one with its newest record, else the one
 * with its newest event), or null before it has worked on the project. Indexed lookups only.
 */
export function teamLocalNamespace(c: Connection, projectKey: string): string | null {
  const newest = (table: "memory_records" | "events", column: string) => {
    let best: { namespace: string; at: number | string } | null = null;
    for (const namespace of projectNamespaces(c, table, projectKey)) {
      // The (namespace, column) index's last entry: no scan of the namespace's rows.
      const { at } = c.stmt(
        `SELECT ${column} AS at FROM ${table} WHERE namespace = ? ORDER BY ${column} DESC LIMIT 1`,
      ).get(namespace) as { at: number | string };
      if (best === null || at > best.at) best = { namespace, at };
    }
    return best?.namespace ?? null;
  };
  return newest("memory_records", "id") ?? newest("events", "valid_time");
}

/** The record's project, when this store holds a record with that id. */
function projectOf(c: Connection, recordId: string): string | null | undefined {
  const row = c.stmt("SELECT namespace FROM memory_records WHERE record_id = ?").get(recordId) as
    | { namespace: string }
    | undefined;
  return row === undefined ? undefined : projectIdFromNamespace(row.namespace);
}

/**
 * Applies teammates' changes of one project and moves its cursor, in one transaction, with
 * capture off (a pulled change is not published back). A tombstone always wins; a live record
 * never brings back one forgotten here, and never overwrites a local change not yet published.
 *
 * A change is applied only inside the project it was pulled for: the namespace this machine
 * uses for the project (resolved once per batch), or a record already in one of the project's
 * namespaces. A change naming the id of a record of any other project is refused (`refused`),
 * and nothing of that record changes: record ids are not trusted across projects.
 *
 * Deleted records' text may linger in the full-text index and the WAL until the caller scrubs
 * them (`scrubDeleted`, once per pull rather than per batch: it rewrites the whole index).
 */
export function teamApply(c: Connection, batch: TeamApplyBatch): TeamApplied {
  const out: TeamApplied = { saved: [], deleted: [], refused: [], done: 0 };
  c.transaction(() => {
    const target = {
      projectKey: batch.projectKey,
      namespace: teamLocalNamespace(c, batch.projectKey),
    };
    setCapture(c, false);
    try {
      let cursor = batch.lastSeq;
      for (const change of batch.changes) {
        applyOne(c, target, change, out);
        out.done++;
        if (out.done < batch.changes.length && batch.giveWay?.()) {
          cursor = change.change_seq;
          break;
        }
      }
      c.stmt(
        `INSERT INTO team_cursors (project_key, last_seq) VALUES (?, ?)
        ON CONFLICT (project_key) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)`,
      ).run(batch.projectKey, cursor);
    } finally {
      setCapture(c, true);
    }
  });
  return out;
}

function applyOne(
  c: Connection,
  target: { projectKey: string; namespace: string | null },
  change: TeamChange,
  out: TeamApplied,
): void {
  const id = change.record_id;
  const project = projectOf(c, id);
  if (project !== undefined && project !== target.projectKey) {
    out.refused.push(id);
    return;
  }
  const inProject = (namespace: string) => projectIdFromNamespace(namespace) === target.projectKey;
  if (change.state !== "live") {
    const outbox = c.stmt("SELECT seq, namespace FROM team_outbox WHERE record_id = ?").all(id) as {
      seq: number;
      namespace: string;
    }[];
    for (const row of outbox) {
      if (inProject(row.namespace)) c.stmt("DELETE FROM team_outbox WHERE seq = ?").run(row.seq);
    }
    const n = project === undefined
      ? 0
      : Number(c.stmt("DELETE FROM memory_records WHERE record_id = ?").run(id).changes);
    const merges = c.stmt("SELECT id, namespace FROM record_merges WHERE summary_id = ?")
      .all(id) as { id: number; namespace: string }[];
    for (const row of merges) {
      if (inProject(row.namespace)) c.stmt("DELETE FROM record_merges WHERE id = ?").run(row.id);
    }
    if (change.state === "forgotten") {
      c.stmt("INSERT OR IGNORE INTO forgotten_records (record_id, forgotten_at) VALUES (?, ?)")
        .run(id, new Date().toISOString());
    }
    if (n > 0) out.deleted.push(id);
    return;
  }
  if (c.stmt("SELECT 1 FROM forgotten_records WHERE record_id = ?").get(id)) return;
  if (c.stmt("SELECT 1 FROM team_outbox WHERE record_id = ?").get(id)) return;
  const [current] = project === undefined ? [] : getRecordsSync(c, [id]);
  const record = MemoryRecordSchema.parse({
    ...change.body,
    record_id: id,
    namespace: current?.namespace ?? target.namespace ??
      buildNamespace(change.origin_actor, target.projectKey),
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
