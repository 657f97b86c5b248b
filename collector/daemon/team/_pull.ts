/**
 * Pulling one shared project: teammates' changes after the project's cursor, read from the team
 * database in pages and applied to the local store in short write transactions.
 *
 * The sync runs on its own SQLite connection beside the collector's, and SQLite has one writer
 * at a time: while a pull holds the write lock, the collector's own ingest, retrieval log and
 * background jobs wait for it (their thread blocked in SQLite's busy handler). So a page is
 * applied in slices, each its own transaction that also moves the cursor (a slice committed is
 * never applied again), and the pull gives way to the collector's writes:
 *
 * - With the collector's write turns (`WriteTurns`: every write transaction of the collector
 *   announces itself in shared memory), a slice holds the lock up to {@linkcode SLICE_MS} while
 *   nobody waits, and ends after the change it is applying as soon as a writer of the collector
 *   announces itself; the pull then waits until no writer of the collector is left, and goes on
 *   at once. So the pull runs at full speed while the collector is idle, and a write of the
 *   collector waits for one change, not a slice.
 * - Without them (a store nobody announces on), a slice holds the lock about
 *   {@linkcode BLIND_SLICE_MS} and the pull pauses at least as long after it.
 *
 * What a change costs does not grow with the store: the project's namespace is resolved once per
 * slice through indexes, and every change is looked up by its id.
 *
 * @module
 */
import {
  isDatabaseBusy,
  type TeamApplied,
  type TeamChange,
  type TeamStore,
  type WriteTurns,
} from "@kiro-learn/core/storage";
import type { TeamSql } from "./connect.ts";

/** How many changes one read from the team database returns. */
export const PULL_PAGE = 500;
/** How long a slice may hold SQLite's write lock while no writer of the collector waits. */
export const SLICE_MS = 50;
/** How long a slice holds the lock when the collector's writers cannot be seen. */
export const BLIND_SLICE_MS = 10;
/** The shortest pause between two slices when the collector's writers cannot be seen. */
const MIN_PAUSE_MS = 5;
/** The pause after a slice found the lock held past the busy timeout. */
const BUSY_PAUSE_MS = 100;
/** The longest wait for the collector's writers between two slices (a stuck count goes on). */
const GIVE_WAY_MS = 1_000;

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
  /** The collector's write turns: give way to its writers (see the module's doc). */
  turns?: WriteTurns;
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
  const { turns } = options;
  const target = turns ? SLICE_MS : BLIND_SLICE_MS;
  const giveWay = turns ? () => turns.waiting() > 0 : undefined;
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
      // Our own live changes coming back are already here; tombstones apply whoever wrote them.
      const changes = slice.map((r) => ({ ...r, change_seq: Number(r.change_seq) }))
        .filter((r) => r.state !== "live" || r.changed_by_client !== options.clientId);
      if (turns) await turns.settled(GIVE_WAY_MS);
      const started = performance.now();
      let applied: TeamApplied;
      try {
        applied = store.teamApply({
          projectKey: key,
          changes,
          lastSeq: Number(slice.at(-1)!.change_seq),
          giveWay,
        });
      } catch (error) {
        // Another writer held the lock past the busy timeout (one the turns do not show: another
        // process, or a long write of the collector's): nothing of the slice was applied. The
        // pull steps back and tries a smaller slice, instead of failing the cycle.
        if (!isDatabaseBusy(error)) throw error;
        size = Math.max(1, Math.floor(size / 2));
        await new Promise((resolve) => setTimeout(resolve, BUSY_PAUSE_MS));
        continue;
      }
      const took = performance.now() - started;
      if (applied.done < changes.length) {
        // Gave way mid-slice: go on from the first change not gone through.
        const next = changes[applied.done].change_seq;
        at += slice.findIndex((r) => Number(r.change_seq) === next);
      } else {
        at += slice.length;
      }
      // The next slice holds the lock about `target` at this slice's cost per applied change
      // (this machine's own changes coming back cost nothing), growing at most twofold a step.
      if (applied.done > 0) {
        const fits = Math.floor(target * applied.done / took);
        size = Math.max(1, Math.min(PULL_PAGE, size * 2, fits));
      }
      result.pulled += applied.done;
      result.deleted += applied.deleted.length;
      result.refused.push(...applied.refused);
      options.onProgress?.(applied.done);
      if (applied.saved.length + applied.deleted.length > 0) options.onApplied?.(applied);
      // Seen writers are waited for before the next slice; unseen ones get a pause as long.
      const pause = turns ? 0 : Math.max(MIN_PAUSE_MS, took);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
    if (rows.length < PULL_PAGE) break;
  }
  // Forget means gone: what the deleted records left in the index and the WAL, once per pull.
  if (result.deleted > 0) store.scrubDeleted();
  return result;
}
