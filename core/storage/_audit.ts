/**
 * The audit tables: retrievals (what was injected, why), extraction runs, and LLM spend.
 *
 * @module
 */
import type { ExtractionRun, LlmUsage, RetrievalLog, RetrievalRow } from "./types.ts";
import type { Row } from "./_rows.ts";
import type { Connection } from "./_connection.ts";

/** See `Storage.logRetrieval`. */
export async function logRetrieval(
  c: Connection,
  log: RetrievalLog,
): Promise<number> {
  await Promise.resolve();
  return c.transaction(() => {
    const { lastInsertRowid } = c.stmt(
      `INSERT INTO retrievals (event_id, namespace, query, latency_ms, tokens, outcome, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      log.event_id ?? null,
      log.namespace,
      log.query,
      log.latency_ms,
      log.tokens,
      log.outcome,
      new Date().toISOString(),
    );
    const id = Number(lastInsertRowid);
    const link = c.stmt(
      `INSERT INTO retrieval_records (retrieval_id, record_id, rank, score)
      SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM memory_records WHERE record_id = ?)`,
    );
    log.results.forEach((r, i) => link.run(id, r.record_id, i + 1, r.score, r.record_id));
    return id;
  });
}

/** See `Storage.injectedInSession`. */
export async function injectedInSession(
  c: Connection,
  target: { namespace: string; sessionId: string },
  options: { query?: string } = {},
): Promise<string[]> {
  await Promise.resolve();
  const rows = c.stmt(
    `SELECT DISTINCT rr.record_id FROM events e
    JOIN retrievals r ON r.event_id = e.event_id
    JOIN retrieval_records rr ON rr.retrieval_id = r.id
    WHERE e.session_id = ? AND e.namespace = ? AND (? IS NULL OR r.query = ?)`,
  ).all(target.sessionId, target.namespace, options.query ?? null, options.query ?? null) as Row[];
  return rows.map((row) => row.record_id as string);
}

/** See `Storage.retrievedInSession`. */
export async function retrievedInSession(
  c: Connection,
  target: { namespace: string; sessionId: string },
  options: { query: string },
): Promise<boolean> {
  await Promise.resolve();
  const row = c.stmt(
    `SELECT 1 FROM events e JOIN retrievals r ON r.event_id = e.event_id
    WHERE e.session_id = ? AND e.namespace = ? AND r.query = ? LIMIT 1`,
  ).get(target.sessionId, target.namespace, options.query);
  return row !== undefined;
}

/** See `Storage.listRetrievals`. */
export async function listRetrievals(
  c: Connection,
  options: { namespace?: string; limit: number },
): Promise<RetrievalRow[]> {
  await Promise.resolve();
  const rows =
    (options.namespace === undefined
      ? c.stmt("SELECT * FROM retrievals ORDER BY id DESC LIMIT ?").all(options.limit)
      : c.stmt("SELECT * FROM retrievals WHERE namespace = ? ORDER BY id DESC LIMIT ?")
        .all(options.namespace, options.limit)) as Row[];
  const links = c.stmt(
    `SELECT rr.record_id, rr.score, mr.title FROM retrieval_records rr
    JOIN memory_records mr ON mr.record_id = rr.record_id
    WHERE rr.retrieval_id = ? ORDER BY rr.rank`,
  );
  return rows.map((row) => ({
    id: row.id as number,
    event_id: (row.event_id as string | null) ?? undefined,
    namespace: row.namespace as string,
    query: row.query as string,
    latency_ms: row.latency_ms as number,
    tokens: row.tokens as number,
    outcome: row.outcome as RetrievalRow["outcome"],
    created_at: row.created_at as string,
    results: links.all(row.id as number) as RetrievalRow["results"],
  }));
}

/** See `Storage.recordRun`. */
export async function recordRun(
  c: Connection,
  run: ExtractionRun,
): Promise<number> {
  await Promise.resolve();
  const { lastInsertRowid } = c.stmt(
    `INSERT INTO extraction_runs (project_id, namespace, started_at, duration_ms, strategy,
      outcome, entries, chunks, records, attempts, chars_sent, chars_received, error, details_json)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    run.project_id,
    run.namespace,
    run.started_at,
    run.duration_ms,
    run.strategy,
    run.outcome,
    run.entries,
    run.chunks,
    run.records,
    run.attempts,
    run.chars_sent,
    run.chars_received,
    run.error ?? null,
    JSON.stringify(run.details ?? {}),
  );
  return Number(lastInsertRowid);
}

/** See `Storage.listRuns`. */
export async function listRuns(
  c: Connection,
  options: { project_id?: string; limit: number },
): Promise<ExtractionRun[]> {
  await Promise.resolve();
  const rows =
    (options.project_id === undefined
      ? c.stmt("SELECT * FROM extraction_runs ORDER BY id DESC LIMIT ?").all(options.limit)
      : c.stmt("SELECT * FROM extraction_runs WHERE project_id = ? ORDER BY id DESC LIMIT ?")
        .all(options.project_id, options.limit)) as Row[];
  return rows.map((row) => {
    const { details_json, ...rest } = row;
    return { ...rest, details: JSON.parse(details_json as string) } as unknown as ExtractionRun;
  });
}

/** See `Storage.addLlmUsage`. */
export async function addLlmUsage(
  c: Connection,
  usage: {
    project_id: string;
    purpose: string;
    chars_sent: number;
    chars_received: number;
    calls?: number;
  },
): Promise<void> {
  await Promise.resolve();
  addUsage(c, usage);
}

/**
 * Adds characters to today's LLM spend (inside the caller's transaction). A negative count gives
 * back part of a reservation; a count never goes below zero (a session reserved before midnight
 * and settled after it is trued up against the new day).
 */
export function addUsage(
  c: Connection,
  usage: {
    project_id: string;
    purpose: string;
    chars_sent: number;
    chars_received: number;
    calls?: number;
  },
): void {
  c.stmt(
    `INSERT INTO llm_usage (day, project_id, purpose, calls, chars_sent, chars_received)
    VALUES (?, ?, ?, ?, max(0, ?), max(0, ?))
    ON CONFLICT(day, project_id, purpose) DO UPDATE SET calls = calls + excluded.calls,
      chars_sent = max(0, chars_sent + ?),
      chars_received = max(0, chars_received + ?)`,
  ).run(
    new Date().toISOString().slice(0, 10),
    usage.project_id,
    usage.purpose,
    usage.calls ?? 1,
    usage.chars_sent,
    usage.chars_received,
    usage.chars_sent,
    usage.chars_received,
  );
}

/** See `Storage.reserveLlmUsage`. */
export async function reserveLlmUsage(
  c: Connection,
  usage: { project_id: string; purpose: string; chars: number; cap: number },
): Promise<boolean> {
  await Promise.resolve();
  return c.transaction(() => {
    const { spent } = c.stmt(
      // Both ways count: a reply (and whatever else the agent streams) is spend too.
      "SELECT coalesce(sum(chars_sent + chars_received), 0) AS spent FROM llm_usage WHERE day = ?",
    ).get(new Date().toISOString().slice(0, 10)) as { spent: number };
    if (spent + usage.chars > usage.cap) return false;
    addUsage(c, {
      project_id: usage.project_id,
      purpose: usage.purpose,
      chars_sent: usage.chars,
      chars_received: 0,
    });
    return true;
  });
}

/** See `Storage.llmUsage`. */
export async function llmUsage(
  c: Connection,
  options: { day: string; project_id?: string },
): Promise<LlmUsage> {
  await Promise.resolve();
  const row = (options.project_id === undefined
    ? c.stmt(
      `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(chars_sent), 0) AS chars_sent,
        coalesce(sum(chars_received), 0) AS chars_received FROM llm_usage WHERE day = ?`,
    ).get(options.day)
    : c.stmt(
      `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(chars_sent), 0) AS chars_sent,
        coalesce(sum(chars_received), 0) AS chars_received FROM llm_usage
      WHERE day = ? AND project_id = ?`,
    ).get(options.day, options.project_id)) as Omit<LlmUsage, "day">;
  return { day: options.day, ...row };
}
