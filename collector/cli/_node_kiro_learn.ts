/**
 * `kiro-learn import kiro-learn [PATH]`: the database of the Node kiro-learn
 * (`~/.kiro-learn/kiro-learn.db` by default; tables `events` and `memory_records`, see the
 * reference spec) brought into this collector with every id kept, so its users can switch.
 * Records go in as memory; events as history (stored, not queued for extraction again: their
 * memory is the records). Both through the API, so they are validated and scrubbed like any
 * other input. The file is opened read-only and never changed.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { ROUTES } from "@kiro-learn/core/api";
import { eventQueryString } from "@kiro-learn/core/api/wire";
import type { Settings } from "@kiro-learn/core/settings";
import { clientFor } from "./_client.ts";
import { UsageError } from "./_command.ts";

/** Counts of one kind of row. */
export interface RowCounts {
  /** New in this collector. */
  added: number;
  /** Already there (an earlier import, or the same id). */
  present: number;
  /** Forgotten here since: not brought back. */
  forgotten: number;
  /** Refused, with the reason (the first few). */
  rejected: { id: string; reason: string }[];
}

/** What importing a Node kiro-learn database did. */
export interface NodeImportReport {
  /** Memory records. */
  records: RowCounts;
  /** Events. */
  events: RowCounts;
}

type Row = Record<string, unknown>;

function parseJson(text: unknown, fallback: unknown): unknown {
  if (typeof text !== "string") return fallback;
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/** A Node `memory_records` row as our record (the columns its migrations 1–5 define). */
export function recordFromNodeRow(row: Row): Record<string, unknown> {
  return {
    record_id: row.record_id,
    namespace: row.namespace,
    strategy: row.strategy,
    title: row.title,
    summary: row.summary,
    facts: parseJson(row.facts_json, []),
    concepts: parseJson(row.concepts_json, []),
    files_touched: parseJson(row.files_touched_json, []),
    observation_type: row.observation_type ?? "tool_use",
    source_event_ids: parseJson(row.source_event_ids_json, []),
    created_at: row.created_at,
  };
}

/** A Node `events` row as our event (its wire schema is ours: schema_version 1). */
export function eventFromNodeRow(row: Row): Record<string, unknown> {
  const event: Record<string, unknown> = {
    event_id: row.event_id,
    session_id: row.session_id,
    actor_id: row.actor_id,
    namespace: row.namespace,
    schema_version: row.schema_version ?? 1,
    kind: row.kind,
    body: parseJson(row.body_json, null),
    valid_time: row.valid_time,
    source: parseJson(row.source_json, null),
  };
  if (typeof row.parent_event_id === "string") event.parent_event_id = row.parent_event_id;
  if (typeof row.content_hash === "string") event.content_hash = row.content_hash;
  return event;
}

function emptyCounts(): RowCounts {
  return { added: 0, present: 0, forgotten: 0, rejected: [] };
}

/** Imports the Node kiro-learn database at `path` into the running collector. */
export async function importNodeKiroLearn(
  settings: Settings,
  path: string,
): Promise<NodeImportReport> {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    db.prepare("SELECT 1 FROM memory_records LIMIT 1").get();
    // This kiro-learn keeps its own database at the same default path.
    const ours = db.prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
    ).get();
    if (ours) {
      db.close();
      throw new UsageError(
        `${path} is this kiro-learn's own database: move the Node kiro-learn's database aside ` +
          "(for example to ~/kiro-learn-node.db) and name it: kiro-learn import kiro-learn PATH",
      );
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `${path} is not a Node kiro-learn database (${
        error instanceof Error ? error.message : error
      }): ` +
        "name its kiro-learn.db (default ~/.kiro-learn/kiro-learn.db)",
    );
  }
  const client = clientFor(settings);
  if (!(await client.health())) await client.request("GET", ROUTES.stats);
  const report: NodeImportReport = { records: emptyCounts(), events: emptyCounts() };
  const tally = (counts: RowCounts, id: string, res: { status: number; body: unknown }) => {
    const body = res.body as { stored?: boolean; error?: string; details?: unknown } | null;
    if (res.status === 200) body?.stored === false ? counts.present++ : counts.added++;
    else if (res.status === 409) counts.present++;
    else if (res.status === 410) counts.forgotten++;
    else if (counts.rejected.length < 20) {
      counts.rejected.push({
        id,
        reason: `${res.status} ${body?.error ?? ""} ${JSON.stringify(body?.details ?? "")}`.trim(),
      });
    } else counts.rejected.push({ id, reason: "refused" });
  };
  try {
    for (const row of db.prepare("SELECT * FROM memory_records ORDER BY created_at").iterate()) {
      const record = recordFromNodeRow(row as Row);
      tally(
        report.records,
        String(record.record_id),
        await client.request("POST", ROUTES.memories, { body: record }),
      );
    }
    const history = ROUTES.events + eventQueryString("history");
    for (const row of db.prepare("SELECT * FROM events ORDER BY valid_time").iterate()) {
      const event = eventFromNodeRow(row as Row);
      tally(
        report.events,
        String(event.event_id),
        await client.request("POST", history, { body: event }),
      );
    }
  } finally {
    db.close();
  }
  return report;
}
