/**
 * The spool: events a shim could not deliver, one file each, so an event that reached a shim
 * is never lost while the collector is down (kiro-learn spec §13 item 13). This module is the
 * one definition of the format: the shims write with {@linkcode spoolEvent}, the collector
 * drains (`collector/daemon/ingest/spool_drain.ts`) and reports with {@linkcode spoolStatus}.
 *
 * Layout of `<dataDir>/spool/`:
 * - `<event_id>.json`: `{"event": <Event>, "query": <EventQuery>}`; the
 *   collector drains these oldest-first (ULID order) and deletes each after ingesting it.
 * - `.<uuid>.tmp`: a file being written; renamed into place only once it is on disk.
 * - `dropped.log`: one line per event refused because the spool was full (itself bounded).
 * - `rejected/`: files the collector could not ingest (moved there by the collector), kept for
 *   a look, bounded by {@linkcode REJECTED_MAX_FILES} and {@linkcode REJECTED_MAX_BYTES}
 *   (the oldest go first).
 *
 * Shims load this on every hook, so it imports no npm or node module (and only types from
 * the zod schemas).
 *
 * @module
 */
import type { EventQuery } from "../api/wire.ts";
import { writeFileAtomic } from "../fs/mod.ts";
import { ULID_PATTERN, ULID_SOURCE } from "../ids.ts";
import type { Event } from "../schemas/mod.ts";
import { DEFAULTS } from "../settings/mod.ts";

/** What the shim had asked the collector for; kept for the record, never replayed. */
export type SpoolQuery = EventQuery;

/** The content of one spool file. */
export interface SpoolRecord {
  /** The event as the shim would have posted it. */
  event: Event;
  /** The query string the post would have carried. */
  query: SpoolQuery;
}

/** A snapshot of the spool, for `status` and `doctor`. */
export interface SpoolStatus {
  /** Spooled events waiting to be drained. */
  files: number;
  /** Their total size in bytes. */
  bytes: number;
  /** The configured bound (`spool.maxBytes`). */
  maxBytes: number;
  /** Lines in `dropped.log`: events refused because the spool was full (since its last trim). */
  dropped: number;
}

/** Outcome of {@linkcode spoolEvent}. */
export type SpoolOutcome =
  | { spooled: true; path: string }
  | { spooled: false; reason: "full" | "error"; message: string };

/** Options for {@linkcode spoolEvent}. */
export interface SpoolEventOptions {
  /** The spool dir (`settings.paths.spool`). */
  spoolDir: string;
  /** Bound on the spool's total size (`settings.spool.maxBytes`). */
  maxBytes: number;
  /** What the post would have asked for. */
  query?: SpoolQuery;
  /** Where warnings go (a full spool, a failed write); default: `[kiro-learn] ...` on stderr. */
  warn?: (message: string) => void;
}

/** Name of the log of events refused because the spool was full. */
export const DROPPED_LOG = "dropped.log";

/** `dropped.log` is trimmed to about half of this when a line would take it past it. */
export const DROPPED_LOG_MAX_BYTES = 64 * 1024;

/** Suffix of spool records (everything else in the dir is not an event). */
export const SPOOL_SUFFIX = ".json";

/** The name of a spool record: `<ULID>.json`. Anything else ending in `.json` is rejected. */
export const SPOOL_FILE_PATTERN: RegExp = new RegExp(`^${ULID_SOURCE}\\.json$`);

/** Subfolder where the collector moves files it could not ingest (never deleted). */
export const REJECTED_DIR = "rejected";

/**
 * Most files `rejected/` keeps: past it (or past {@linkcode REJECTED_MAX_BYTES}) the drain
 * deletes the oldest, with a log line, so a stream of bad files cannot fill the disk.
 */
export const REJECTED_MAX_FILES = 1000;

/** Most bytes `rejected/` keeps (see {@linkcode REJECTED_MAX_FILES}). */
export const REJECTED_MAX_BYTES = 16 * 1024 * 1024;

const encoder = new TextEncoder();

/**
 * Writes `event` to the spool atomically and durably: a `.tmp` file (0600) → fsync → rename →
 * fsync of the dir. When the file would take the spool past `maxBytes` nothing is written;
 * a line goes to `dropped.log` and a warning to stderr instead. Never throws.
 */
export function spoolEvent(event: Event, options: SpoolEventOptions): SpoolOutcome {
  const warn = options.warn ?? warnOnStderr;
  try {
    if (!ULID_PATTERN.test(event.event_id)) {
      // The id becomes a file name: refuse anything that could name another path.
      return { spooled: false, reason: "error", message: "event_id is not a ULID" };
    }
    const dir = options.spoolDir;
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const record: SpoolRecord = { event, query: options.query ?? "" };
    const data = encoder.encode(JSON.stringify(record) + "\n");
    const used = spoolUsage(dir).bytes;
    if (used + data.length > options.maxBytes) {
      recordDrop(dir, event, `spool full (${used} of ${options.maxBytes} bytes used)`, warn);
      warn(
        `spool full (${used}/${options.maxBytes} bytes): event ${event.event_id} dropped; ` +
          `start the collector (kiro-learn start) to drain it`,
      );
      return { spooled: false, reason: "full", message: "spool full" };
    }
    const path = `${dir}/${event.event_id}${SPOOL_SUFFIX}`;
    writeFileAtomic(path, data, { mode: 0o600, syncDir: true });
    return { spooled: true, path };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    warn(`could not spool event ${event.event_id}: ${message}`);
    return { spooled: false, reason: "error", message };
  }
}

/** Options for {@linkcode spoolStatus}. */
export interface SpoolStatusOptions {
  /** The bound to report; defaults to the settings default. */
  maxBytes?: number;
}

/** Share of `spool.maxBytes` past which the spool is reported as filling. */
export const SPOOL_FILLING_SHARE = 0.8;

/**
 * True when the spool needs attention: past {@linkcode SPOOL_FILLING_SHARE} of its bound, or
 * events were already dropped because it was full. `status` and `doctor` both say it from this.
 */
export function spoolFilling(status: SpoolStatus): boolean {
  return status.bytes >= SPOOL_FILLING_SHARE * status.maxBytes || status.dropped > 0;
}

/**
 * Counts the events waiting in the spool dir (a missing dir is an empty spool): only
 * `<ULID>.json` records at its top level, never the other state shims keep there (transcript
 * read marks, the down notice) nor `rejected/`. Never throws.
 */
export function spoolStatus(dir: string, options: SpoolStatusOptions = {}): SpoolStatus {
  const usage = spoolUsage(dir);
  return {
    files: usage.files,
    bytes: usage.bytes,
    maxBytes: options.maxBytes ?? DEFAULTS.spool.maxBytes,
    dropped: countDropped(dir),
  };
}

function spoolUsage(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync(dir);
  } catch {
    return { files, bytes };
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(SPOOL_SUFFIX) || entry.name.startsWith(".")) {
      continue;
    }
    try {
      bytes += Deno.statSync(`${dir}/${entry.name}`).size;
      files++;
    } catch {
      // Drained between the listing and the stat.
    }
  }
  return { files, bytes };
}

function countDropped(dir: string): number {
  try {
    const text = Deno.readTextFileSync(`${dir}/${DROPPED_LOG}`);
    return text.split("\n").filter((line) => line.trim() !== "").length;
  } catch {
    return 0;
  }
}

function recordDrop(
  dir: string,
  event: Event,
  reason: string,
  warn: (message: string) => void,
): void {
  const line = `${new Date().toISOString()} dropped ${event.event_id} kind=${event.kind} ` +
    `session=${JSON.stringify(event.session_id)} surface=${event.source.surface} ` +
    `reason=${JSON.stringify(reason)}\n`;
  const path = `${dir}/${DROPPED_LOG}`;
  try {
    let size = 0;
    try {
      size = Deno.statSync(path).size;
    } catch {
      // No log yet.
    }
    if (size + line.length <= DROPPED_LOG_MAX_BYTES) {
      Deno.writeTextFileSync(path, line, { append: true, create: true, mode: 0o600 });
      return;
    }
    // Keep the newest half so the log stays bounded but still tells what happened lately.
    const old = Deno.readTextFileSync(path);
    const lines = old.split("\n").filter((l) => l !== "");
    const kept: string[] = [];
    let keptBytes = 0;
    for (let i = lines.length - 1; i >= 0; i--) {
      keptBytes += lines[i].length + 1;
      if (keptBytes > DROPPED_LOG_MAX_BYTES / 2) break;
      kept.unshift(lines[i]);
    }
    const text = (kept.length > 0 ? kept.join("\n") + "\n" : "") + line;
    writeFileAtomic(path, encoder.encode(text), { mode: 0o600, syncDir: true });
  } catch (error) {
    warn(`could not write ${DROPPED_LOG}: ${error instanceof Error ? error.message : error}`);
  }
}

function warnOnStderr(message: string): void {
  try {
    const data = encoder.encode(`[kiro-learn] ${message}\n`);
    let written = 0;
    while (written < data.length) written += Deno.stderr.writeSync(data.subarray(written));
  } catch {
    // Nowhere left to report to.
  }
}
