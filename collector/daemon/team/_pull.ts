/**
 * Pulling one shared project: teammates' changes after the project's cursor, read from the team
 * database in pages and applied to the local store in short write transactions.
 *
 * The sync runs on its own SQLite connection beside the collector's, and SQLite has one writer
 * at a time: while a pull holds the write lock, the collector's own ingest, retrieval log and
 * background jobs wait for it (their thread blocked in SQLite's busy handler), and fail once
 * they have waited out the busy timeout. So a page is applied in slices sized to hold the lock
 * for about {@linkcode SLICE_MS}, each its own transaction that also moves the cursor (a slice
 * committed is never applied again), and after each slice the pull pauses at least as long as
 * the slice took, so a waiting writer gets the lock within a few of its busy-handler retries.
 * What a slice costs does not grow with the store: the project's namespace is resolved once per
 * slice through indexes, and every change is looked up by its id.
 *
 * @module
 */
import type { TeamApplied, TeamChange, TeamStore } from "@kiro-learn/core/storage";
import type { TeamSql } from "./connect.ts";

/** How many changes one read from the team database returns. */
export const PULL_PAGE = 500;
/** How long one slice should hold SQLite's write lock. */
export const SLICE_MS = 10;
/** The shortest pause between two slices. */
const MIN_PAUSE_MS = 5;

/** What {@linkcode pullProject} reports as it goes. */
export interface PullOptions {
  /** The project. */
  projectKey: string;
  /** This machine's id in the team: its own live changes coming back are already here. */
  clientId: string;
  /** Told what each slice changed here (embeddings, live feed). */
  onApplied?: (applied: TeamApplied) => void;
  /** Told after each slice how many changes it applied. */
  onProgress?: (changes: number) => void;
}

/** What a whole pull did. */
export interface PullResult {
  /** Changes applied (teammates' changes read, less this machine's own). */
  pulled: number;
  /** Records deleted here (forgotten or merged by a teammate). */
  deleted: number;
  /** Changes refused because they named a record of another project. */
  refused: string[];
}

/** Pulls every change of a project after its cursor into `store`. */
export async function pullProject(
  sql: TeamSql,
  store: TeamStore,
  options: PullOptions,
): Promise<PullResult> {
  const { projectKey: key } = options;
  const result: PullResult = { pulled: 0, deleted: 0, refused: [] };
  let size = 16;
  for (;;) {
    const cursor = store.teamCursor(key);
    const rows = await sql<(Omit<TeamChange, "change_seq"> & { change_seq: string })[]>`
      SELECT record_id, change_seq, state, body, superseded_by, origin_actor, origin_role,
        origin_client, changed_by_role, changed_by_client
      FROM kl_records WHERE project_key = ${key} AND change_seq > ${cursor}
      ORDER BY change_seq LIMIT ${PULL_PAGE}`;
    for (let at = 0; at < rows.length;) {
      const slice = rows.slice(at, at + size);
      at += slice.length;
      // Our own live changes coming back are already here; tombstones apply whoever wrote them.
      const changes = slice.map((r) => ({ ...r, change_seq: Number(r.change_seq) }))
        .filter((r) => r.state !== "live" || r.changed_by_client !== options.clientId);
      const started = performance.now();
      const applied = store.teamApply({
        projectKey: key,
        changes,
        lastSeq: Number(slice.at(-1)!.change_seq),
      });
      const took = performance.now() - started;
      // The next slice holds the lock about SLICE_MS at this slice's cost per applied change
      // (this machine's own changes coming back cost nothing), growing at most twofold a step.
      if (changes.length > 0) {
        const fits = Math.floor(SLICE_MS * changes.length / took);
        size = Math.max(1, Math.min(PULL_PAGE, size * 2, fits));
      }
      result.pulled += changes.length;
      result.deleted += applied.deleted.length;
      result.refused.push(...applied.refused);
      options.onProgress?.(changes.length);
      if (applied.saved.length + applied.deleted.length > 0) options.onApplied?.(applied);
      await new Promise((resolve) => setTimeout(resolve, Math.max(MIN_PAUSE_MS, took)));
    }
    if (rows.length < PULL_PAGE) break;
  }
  // Forget means gone: what the deleted records left in the index and the WAL, once per pull.
  if (result.deleted > 0) store.scrubDeleted();
  return result;
}
