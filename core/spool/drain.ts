/**
 * Draining the shim spool: events a shim could not deliver wait in `<dataDir>/spool/` as
 * `<event_id>.json` files (`{"event": <Event>, "query": <EventQuery>}`, written
 * atomically by the shims; the format is defined in `@kiro-learn/core/spool`). The collector
 * drains them at start and periodically.
 *
 * Guarantees: files are ingested oldest first (ULID order); a file is deleted only after its
 * event was ingested, and ingest is idempotent on `event_id`, so a crash mid-drain stores
 * nothing twice; a file that cannot be ingested (unreadable, not JSON, invalid event) is moved
 * to `spool/rejected/`, which keeps the newest {@linkcode REJECTED_MAX_FILES} files up to
 * {@linkcode REJECTED_MAX_BYTES} (older ones are deleted, with a log line); a failing ingest (storage down) stops the drain and
 * leaves the rest for the next one.
 *
 * @module
 */
import {
  REJECTED_DIR,
  REJECTED_MAX_BYTES,
  REJECTED_MAX_FILES,
  SPOOL_FILE_PATTERN,
} from "./spool.ts";

/** Where the drain reports. */
export interface SpoolDrainLogger {
  /** Something needs attention. */
  warn(msg: string, fields?: Record<string, unknown>): void;
  /** Progress. */
  info(msg: string, fields?: Record<string, unknown>): void;
}

/** Ingests one parsed event; `ok: false` means the event is invalid and will never be. */
export type SpoolIngest = (event: unknown) => Promise<{ ok: boolean }>;

/** Options for {@linkcode drainSpool}. */
export interface DrainSpoolOptions {
  /** Reports rejects, failures and a summary. */
  logger?: SpoolDrainLogger;
  /** `.tmp` files older than this are debris of a crashed shim (default 60 s). */
  tmpMaxAgeMs?: number;
  /** Clock in ms (default `Date.now`). */
  now?: () => number;
  /** Most files `rejected/` keeps (default {@linkcode REJECTED_MAX_FILES}). */
  rejectedMaxFiles?: number;
  /** Most bytes `rejected/` keeps (default {@linkcode REJECTED_MAX_BYTES}). */
  rejectedMaxBytes?: number;
}

/** What one drain did. */
export interface DrainSpoolResult {
  /** Events ingested (and their files deleted). */
  ingested: number;
  /** Files moved to `rejected/`. */
  rejected: number;
  /** Files left for a later drain because ingest failed. */
  remaining: number;
  /** Old files deleted from `rejected/` to keep it within its bounds. */
  pruned: number;
}

const running = new Map<string, Promise<DrainSpoolResult>>();

/**
 * Drains `spoolDir` once. Concurrent calls for the same dir share one run (a start-up drain
 * and a timer tick never ingest the same file twice at once). Never rejects.
 */
export function drainSpool(
  spoolDir: string,
  ingest: SpoolIngest,
  options: DrainSpoolOptions = {},
): Promise<DrainSpoolResult> {
  const current = running.get(spoolDir);
  if (current) return current;
  const run = drainOnce(spoolDir, ingest, options).finally(() => running.delete(spoolDir));
  running.set(spoolDir, run);
  return run;
}

async function drainOnce(
  spoolDir: string,
  ingest: SpoolIngest,
  options: DrainSpoolOptions,
): Promise<DrainSpoolResult> {
  const result: DrainSpoolResult = { ingested: 0, rejected: 0, remaining: 0, pruned: 0 };
  const logger = options.logger;
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(spoolDir)) {
      if (!entry.isFile) continue;
      if (entry.name.startsWith(".") && entry.name.endsWith(".tmp")) {
        await removeStaleTmp(spoolDir, entry.name, options);
      } else if (entry.name.endsWith(".json") && !entry.name.startsWith(".")) {
        names.push(entry.name);
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      logger?.warn("spool: cannot list the spool dir", { dir: spoolDir, error: String(error) });
    }
    return result;
  }
  // ULIDs sort by time, so name order is the order the shims captured the events in.
  names.sort();
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const path = `${spoolDir}/${name}`;
    if (!SPOOL_FILE_PATTERN.test(name)) {
      await reject(spoolDir, name, "file name is not <ULID>.json", result, logger);
      continue;
    }
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (error) {
      // Another drain (another collector process) took it meanwhile.
      if (error instanceof Deno.errors.NotFound) continue;
      await reject(spoolDir, name, `unreadable: ${error}`, result, logger);
      continue;
    }
    const event = eventOf(text);
    if (event === undefined) {
      await reject(spoolDir, name, "not a spool record ({event, query})", result, logger);
      continue;
    }
    let outcome: { ok: boolean };
    try {
      outcome = await ingest(event);
    } catch (error) {
      result.remaining = names.length - i;
      logger?.warn("spool: ingest failed; the rest waits for the next drain", {
        file: name,
        remaining: result.remaining,
        error: String(error),
      });
      break;
    }
    if (!outcome.ok) {
      await reject(spoolDir, name, "the collector refused the event", result, logger);
      continue;
    }
    try {
      await Deno.remove(path);
    } catch (error) {
      // Ingested already; a leftover file is harmless (ingest is idempotent).
      if (!(error instanceof Deno.errors.NotFound)) {
        logger?.warn("spool: cannot delete a drained file", { file: name, error: String(error) });
      }
    }
    result.ingested++;
  }
  result.pruned = await pruneRejected(`${spoolDir}/${REJECTED_DIR}`, options);
  if (result.ingested > 0 || result.rejected > 0) {
    logger?.info("spool drained", { ...result });
  }
  return result;
}

/**
 * Deletes the oldest files of `dir` (by modification time, then name) until at most
 * `rejectedMaxFiles` files and `rejectedMaxBytes` bytes remain; returns how many went.
 */
async function pruneRejected(dir: string, options: DrainSpoolOptions): Promise<number> {
  const maxFiles = options.rejectedMaxFiles ?? REJECTED_MAX_FILES;
  const maxBytes = options.rejectedMaxBytes ?? REJECTED_MAX_BYTES;
  const files: { name: string; size: number; mtime: number }[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile) continue;
      try {
        const info = await Deno.stat(`${dir}/${entry.name}`);
        files.push({ name: entry.name, size: info.size, mtime: info.mtime?.getTime() ?? 0 });
      } catch {
        // Gone meanwhile.
      }
    }
  } catch {
    return 0; // No rejected/ yet.
  }
  let bytes = files.reduce((sum, f) => sum + f.size, 0);
  let count = files.length;
  if (count <= maxFiles && bytes <= maxBytes) return 0;
  files.sort((a, b) => a.mtime - b.mtime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let pruned = 0;
  let prunedBytes = 0;
  for (const file of files) {
    if (count <= maxFiles && bytes <= maxBytes) break;
    try {
      await Deno.remove(`${dir}/${file.name}`);
      pruned++;
      prunedBytes += file.size;
    } catch {
      // Gone meanwhile: it no longer counts either way.
    }
    count--;
    bytes -= file.size;
  }
  if (pruned > 0) {
    options.logger?.warn("spool: deleted the oldest rejected files to keep rejected/ bounded", {
      dir,
      deleted: pruned,
      deleted_bytes: prunedBytes,
      kept: count,
      kept_bytes: bytes,
      max_files: maxFiles,
      max_bytes: maxBytes,
    });
  }
  return pruned;
}

function eventOf(text: string): unknown {
  try {
    const record = JSON.parse(text);
    if (record === null || typeof record !== "object" || Array.isArray(record)) return undefined;
    const event = (record as Record<string, unknown>).event;
    if (event === null || typeof event !== "object" || Array.isArray(event)) return undefined;
    return event;
  } catch {
    return undefined;
  }
}

async function reject(
  spoolDir: string,
  name: string,
  reason: string,
  result: DrainSpoolResult,
  logger: SpoolDrainLogger | undefined,
): Promise<void> {
  const dir = `${spoolDir}/${REJECTED_DIR}`;
  try {
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    let target = `${dir}/${name}`;
    if (await exists(target)) target = `${dir}/${name}.${Date.now()}`;
    await Deno.rename(`${spoolDir}/${name}`, target);
    result.rejected++;
    logger?.warn("spool: file rejected", { file: name, reason, moved_to: target });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    logger?.warn("spool: cannot move a rejected file", {
      file: name,
      reason,
      error: String(error),
    });
  }
}

async function removeStaleTmp(
  spoolDir: string,
  name: string,
  options: DrainSpoolOptions,
): Promise<void> {
  const path = `${spoolDir}/${name}`;
  try {
    const info = await Deno.stat(path);
    const age = (options.now ?? Date.now)() - (info.mtime?.getTime() ?? 0);
    // A young .tmp may be a shim writing right now; only debris of a crash is removed.
    if (age > (options.tmpMaxAgeMs ?? 60_000)) await Deno.remove(path);
  } catch {
    // Renamed into place or removed meanwhile.
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
