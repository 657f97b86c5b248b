/**
 * Publishing one project's outbox rows to the team database: one multi-row upsert per batch,
 * inside one transaction, instead of a round trip per row.
 *
 * The rule per row is the one a single upsert had: a new record is inserted; a changed one
 * replaces the row (a new `change_seq`, last writer wins in commit order); unchanged content is
 * not written again; a tombstone is final (the schema's trigger skips any update of one). Row-level
 * security, the grants and the triggers apply to every row of the statement as they did to one.
 *
 * A row the database refuses (a CHECK or data error, a restrictive policy an admin added) would
 * fail the whole statement, and so the project's whole outbox, cycle after cycle. So a refused
 * batch is split in halves, each under a savepoint, down to the rows that are refused, and the
 * others are published in the same transaction. What is refused is reported: for its content
 * (SQLSTATE class 22 or 23) it can never be published as it is, and its outbox row is done with
 * (the record stays on this machine; a later edit is published anew); by privilege (42501) it is
 * kept in the outbox and tried again next cycle. A batch refused by privilege because the
 * project's grant went away meanwhile is kept whole, without splitting.
 *
 * @module
 */
import type { TeamOutboxItem } from "@kiro-learn/core/storage";
import type postgres from "postgres";
import type { TeamSql } from "./connect.ts";

/** A row the team database refused. */
export interface PublishRefusal {
  /** The record. */
  record_id: string;
  /** The database's reason (its message and SQLSTATE). */
  reason: string;
  /** Refused by privilege: its outbox row stays, to be tried again. */
  kept: boolean;
}

/** What publishing one project's batch did. */
export interface PublishOutcome {
  /** Outbox rows done with (published, unchanged, or refused for their content). */
  done: number[];
  /** Outbox rows kept for a later cycle (refused by privilege). */
  kept: number[];
  /** Records written or found unchanged in the team database. */
  published: number;
  /** Rows refused, each once. */
  refused: PublishRefusal[];
}

/** One row of the batch statement (jsonb_to_recordset's columns). */
interface Row {
  i: number;
  record_id: string;
  state: "live" | "forgotten" | "merged";
  body: Record<string, unknown> | null;
  superseded_by: string | null;
  actor: string;
}

/** Publishes `items` (outbox rows of project `projectKey`) in one transaction. */
export async function publishProject(
  sql: TeamSql,
  items: readonly TeamOutboxItem[],
  options: { projectKey: string; clientId: string },
): Promise<PublishOutcome> {
  // One statement may change a row once: a record's later outbox rows supersede its earlier ones
  // (every row is resolved to the record's state now, so the last says all).
  const last = new Map<string, TeamOutboxItem>();
  for (const item of items) if (item.kind !== "skip") last.set(item.record_id, item);
  const rows = [...last.values()].map((item, i) => toRow(item, i));
  const refused: PublishRefusal[] = [];
  let revoked = false;
  await sql.begin(async (tx) => {
    revoked = await place(tx, rows, options, refused);
  });
  const keptIds = new Set(
    revoked ? rows.map((r) => r.record_id) : refused.filter((r) => r.kept).map((r) => r.record_id),
  );
  const done: number[] = [];
  const kept: number[] = [];
  for (const item of items) (keptIds.has(item.record_id) ? kept : done).push(item.seq);
  const dropped = refused.filter((r) => !r.kept).length;
  return {
    done,
    kept,
    published: revoked ? 0 : rows.length - keptIds.size - dropped,
    refused: revoked ? [] : refused,
  };
}

function toRow(item: TeamOutboxItem, i: number): Row {
  if (item.kind === "put") {
    const { namespace, ...body } = item.record;
    return {
      i,
      record_id: item.record_id,
      state: "live",
      body,
      superseded_by: null,
      actor: namespace.split("/")[2] ?? "unknown",
    };
  }
  return {
    i,
    record_id: item.record_id,
    state: item.kind === "merged" ? "merged" : "forgotten",
    body: null,
    superseded_by: item.kind === "merged" ? item.superseded_by : null,
    actor: "unknown",
  };
}

/**
 * Upserts `rows` under a savepoint, splitting a refused batch down to its refused rows. Returns
 * true when the project is no longer granted (nothing of it can be written now).
 */
async function place(
  tx: postgres.TransactionSql,
  rows: Row[],
  options: { projectKey: string; clientId: string },
  refused: PublishRefusal[],
): Promise<boolean> {
  if (rows.length === 0) return false;
  try {
    await tx.savepoint((sp) => upsert(sp, rows, options));
    return false;
  } catch (error) {
    const kind = refusal(error);
    if (kind === null) throw error;
    if (kind === "privilege" && !await granted(tx, options.projectKey)) return true;
    if (rows.length === 1) {
      const e = error as { message?: string; code?: string };
      refused.push({
        record_id: rows[0].record_id,
        reason: `${e.message ?? String(error)} (SQLSTATE ${e.code})`,
        kept: kind === "privilege",
      });
      return false;
    }
    const half = Math.ceil(rows.length / 2);
    return await place(tx, rows.slice(0, half), options, refused) ||
      await place(tx, rows.slice(half), options, refused);
  }
}

async function upsert(
  sql: postgres.Sql | postgres.TransactionSql,
  rows: Row[],
  options: { projectKey: string; clientId: string },
): Promise<void> {
  const { projectKey: key, clientId } = options;
  // Unchanged content is not written again (no new change_seq, no needless pulls). The trigger
  // stamps change_seq, the roles and the time, and leaves a tombstone as it is.
  await sql`
    INSERT INTO kl_records (project_key, record_id, change_seq, state, body, superseded_by,
      origin_actor, origin_role, origin_client, changed_by_role, changed_by_client, changed_at)
    SELECT ${key}, r.record_id, 0, r.state, r.body, r.superseded_by, r.actor, current_user,
      ${clientId}, current_user, ${clientId}, now()
    FROM jsonb_to_recordset(${sql.json(rows as unknown as postgres.JSONValue)}) AS r(i int,
      record_id text, state text, body jsonb, superseded_by text, actor text)
    ORDER BY r.i
    ON CONFLICT (project_key, record_id) DO UPDATE SET state = excluded.state,
      body = excluded.body, superseded_by = excluded.superseded_by,
      changed_by_client = excluded.changed_by_client
    WHERE (kl_records.state, kl_records.body, kl_records.superseded_by)
      IS DISTINCT FROM (excluded.state, excluded.body, excluded.superseded_by)`;
}

/** Whether `error` is the database refusing rows (for their content, or by privilege). */
function refusal(error: unknown): "content" | "privilege" | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  if (code === "42501") return "privilege";
  return code.startsWith("22") || code.startsWith("23") ? "content" : null;
}

async function granted(tx: postgres.TransactionSql, key: string): Promise<boolean> {
  // The refused statement's savepoint is rolled back: the transaction reads on.
  const rows = await tx`SELECT 1 FROM kl_grants WHERE project_key = ${key} LIMIT 1`;
  return rows.length > 0;
}
