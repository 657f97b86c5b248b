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
import { emptyCounts, type SaveCounts, tally } from "./_save_counts.ts";

/** What importing a Node kiro-learn database did. */
export interface NodeImportReport {
  /** Memory records. */
  records: SaveCounts;
  /** Events. */
  events: SaveCounts;
  /** Tables the database lacks (an older or a trimmed one): nothing read from them. */
  missing: string[];
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
  const report: NodeImportReport = {
    records: emptyCounts(),
    events: emptyCounts(),
    missing: [],
  };
  // An events table is optional: its records are the memory; without it there is no history.
  const hasEvents = db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'",
  ).get() !== undefined;
  if (!hasEvents) report.missing.push("events");
  try {
    for (const row of db.prepare("SELECT * FROM memory_records ORDER BY created_at").iterate()) {
      const record = recordFromNodeRow(row as Row);
      tally(report.records, await client.request("POST", ROUTES.memories, { body: record }), {
        id: String(record.record_id),
      });
    }
    const history = ROUTES.events + eventQueryString("history");
    const rows = hasEvents ? db.prepare("SELECT * FROM events ORDER BY valid_time").iterate() : [];
    for (const row of rows) {
      const event = eventFromNodeRow(row as Row);
      tally(report.events, await client.request("POST", history, { body: event }), {
        id: String(event.event_id),
      });
    }
  } finally {
    db.close();
  }
  return report;
}
