/**
 * Events: ingest (each event with its queue row, in one transaction), read and list.
 *
 * @module
 */
import type { Event } from "../schemas/mod.ts";
import { eventFromRow, type Row } from "./_rows.ts";
import { insertQueueRow } from "./_queue.ts";
import type { Connection } from "./_connection.ts";

/** See `Storage.ingestEvent`. */
export async function ingestEvent(
  c: Connection,
  event: Event,
  options: { project_id: string; enqueue: boolean },
): Promise<boolean> {
  const [stored] = await ingestEvents(c, [{ event, ...options }]);
  return stored;
}

/** See `Storage.ingestEvents`. */
export async function ingestEvents(
  c: Connection,
  items: readonly { event: Event; project_id: string; enqueue: boolean }[],
): Promise<boolean[]> {
  await Promise.resolve();
  return c.transaction(() => items.map((item) => insertEvent(c, item)));
}

/** Inserts one event and, when asked, its queue row (inside the caller's transaction). */
export function insertEvent(
  c: Connection,
  item: { event: Event; project_id: string; enqueue: boolean },
): boolean {
  const { event } = item;
  const bodyJson = JSON.stringify(event.body);
  const result = c.stmt(
    `INSERT INTO events (event_id, parent_event_id, session_id, actor_id, namespace, project_id,
      schema_version, kind, body_json, valid_time, transaction_time, source_json, surface,
      project_path, content_hash)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(event_id) DO NOTHING`,
  ).run(
    event.event_id,
    event.parent_event_id ?? null,
    event.session_id,
    event.actor_id,
    event.namespace,
    item.project_id,
    event.schema_version,
    event.kind,
    bodyJson,
    event.valid_time,
    new Date().toISOString(),
    JSON.stringify(event.source),
    event.source.surface,
    event.source.project_path ?? null,
    event.content_hash ?? null,
  );
  if (result.changes === 0) return false;
  if (item.enqueue) {
    insertQueueRow(c, {
      project_id: item.project_id,
      namespace: event.namespace,
      kind: event.kind,
      body: event.body,
      timestamp: event.valid_time,
      surface: event.source.surface,
      source_event_ids: [event.event_id],
      compacted: false,
    }, bodyJson);
  }
  return true;
}

/** See `Storage.getEvents`. */
export async function getEvents(
  c: Connection,
  ids: readonly string[],
): Promise<Event[]> {
  await Promise.resolve();
  const out: Event[] = [];
  const stmt = c.stmt("SELECT * FROM events WHERE event_id = ?");
  for (const id of ids) {
    const row = stmt.get(id) as Row | undefined;
    if (row) out.push(eventFromRow(row));
  }
  return out;
}

/** See `Storage.listEvents`. */
export async function listEvents(
  c: Connection,
  options: { namespace?: string; limit: number; offset?: number },
): Promise<{ items: Event[]; total: number }> {
  await Promise.resolve();
  const offset = options.offset ?? 0;
  if (options.namespace !== undefined) {
    const rows = c.stmt(
      `SELECT * FROM events WHERE namespace = ? ORDER BY valid_time DESC, event_id DESC
      LIMIT ? OFFSET ?`,
    ).all(options.namespace, options.limit, offset) as Row[];
    const total = c.stmt("SELECT count(*) AS n FROM events WHERE namespace = ?")
      .get(options.namespace) as { n: number };
    return { items: rows.map(eventFromRow), total: total.n };
  }
  const rows = c.stmt(
    "SELECT * FROM events ORDER BY valid_time DESC, event_id DESC LIMIT ? OFFSET ?",
  ).all(options.limit, offset) as Row[];
  const total = c.stmt("SELECT count(*) AS n FROM events").get() as { n: number };
  return { items: rows.map(eventFromRow), total: total.n };
}

/** See `Storage.findSameEvent`. */
export async function findSameEvent(
  c: Connection,
  event: Event,
  options: { windowMs: number },
): Promise<string | null> {
  await Promise.resolve();
  const at = Date.parse(event.valid_time);
  const rows = c.stmt(
    `SELECT event_id, valid_time FROM events WHERE session_id = ? AND kind = ? AND body_json = ?
    AND namespace = ? LIMIT 50`,
  ).all(event.session_id, event.kind, JSON.stringify(event.body), event.namespace) as {
    event_id: string;
    valid_time: string;
  }[];
  if (rows.some((r) => r.event_id === event.event_id)) return null;
  const near = rows.find((r) => Math.abs(Date.parse(r.valid_time) - at) <= options.windowMs);
  return near?.event_id ?? null;
}
