/**
 * Row mapping shared by the storage modules: the record, event and queue columns and how a row
 * becomes a value.
 *
 * @module
 */
import type { Event, MemoryRecord, QueueEntry } from "../schemas/mod.ts";

/** A result row as node:sqlite returns it. */
export type Row = Record<string, unknown>;

/** Builds `WHERE a AND b` from the conditions whose value is set (unset filters match all). */
export function whereClause(
  conditions: [sql: string, value: string | undefined][],
): { clause: string; params: string[] } {
  const set = conditions.filter((c): c is [string, string] => c[1] !== undefined);
  return {
    clause: set.length > 0 ? `WHERE ${set.map((c) => c[0]).join(" AND ")}` : "",
    params: set.map((c) => c[1]),
  };
}

/** The columns a memory record is read from, in order. */
export const RECORD_FIELDS: readonly string[] = [
  "record_id",
  "namespace",
  "strategy",
  "title",
  "summary",
  "facts_json",
  "concepts_json",
  "files_touched_json",
  "observation_type",
  "source_event_ids_json",
  "created_at",
];
/** {@linkcode RECORD_FIELDS} as a select list. */
export const RECORD_COLUMNS: string = RECORD_FIELDS.join(", ");
/** {@linkcode RECORD_FIELDS} as a select list on the `mr` alias (joins with the index). */
export const RECORD_COLUMNS_MR: string = RECORD_FIELDS.map((f) => `mr.${f}`).join(", ");

/** A `memory_records` row as a record. */
export function recordFromRow(row: Row): MemoryRecord {
  return {
    record_id: row.record_id as string,
    namespace: row.namespace as string,
    strategy: row.strategy as MemoryRecord["strategy"],
    title: row.title as string,
    summary: row.summary as string,
    facts: JSON.parse(row.facts_json as string),
    concepts: JSON.parse(row.concepts_json as string),
    files_touched: JSON.parse(row.files_touched_json as string),
    observation_type: row.observation_type as MemoryRecord["observation_type"],
    source_event_ids: JSON.parse(row.source_event_ids_json as string),
    created_at: row.created_at as string,
  };
}

/** An `events` row as an event. */
export function eventFromRow(row: Row): Event {
  const event: Event = {
    event_id: row.event_id as string,
    session_id: row.session_id as string,
    actor_id: row.actor_id as string,
    namespace: row.namespace as string,
    schema_version: 1,
    kind: row.kind as Event["kind"],
    body: JSON.parse(row.body_json as string),
    valid_time: row.valid_time as string,
    source: JSON.parse(row.source_json as string),
  };
  if (row.parent_event_id) event.parent_event_id = row.parent_event_id as string;
  if (row.content_hash) event.content_hash = row.content_hash as string;
  return event;
}

/** An `extraction_queue` row as a queue entry. */
export function queueEntryFromRow(row: Row): QueueEntry {
  return {
    seq: row.seq as number,
    project_id: row.project_id as string,
    namespace: row.namespace as string,
    kind: row.kind as QueueEntry["kind"],
    body: JSON.parse(row.body_json as string),
    timestamp: row.timestamp as string,
    surface: row.surface as QueueEntry["surface"],
    source_event_ids: JSON.parse(row.source_event_ids_json as string),
    compacted: row.compacted === 1,
    bytes: row.bytes as number,
  };
}
