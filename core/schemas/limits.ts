/**
 * Size limits shared by every member: one source of truth for each number.
 *
 * @module
 */

/** Largest event body, measured as the length of its JSON serialisation (UTF-16 units). */
export const MAX_EVENT_BODY_CHARS = 1_048_576;

/** Largest HTTP request body the collector reads, in bytes. */
export const MAX_REQUEST_BYTES = 2 * 1_048_576;

/** Largest serialised body a shim sends before truncating it, in UTF-8 bytes. */
export const SHIM_BODY_CAP_BYTES = 524_288;

/** Marker appended to anything cut to fit a limit. */
export const TRUNCATION_MARKER = " [truncated by kiro-learn]";

/** Memory record field limits (characters). */
export const RECORD_LIMITS = {
  title: 200,
  summary: 4000,
  fact: 500,
  facts: 50,
  concept: 100,
  concepts: 50,
  file: 500,
  files: 200,
  sourceEventIds: 50_000,
} as const;

/** Longest `project_path` accepted on an event. */
export const MAX_PROJECT_PATH = 2048;

/** Longest namespace accepted anywhere. */
export const MAX_NAMESPACE = 500;

/** `/actor/<user>/project/<id>/`, trailing slash required. */
export const NAMESPACE_PATTERN: RegExp = /^\/actor\/[^/]+\/project\/[^/]+\/$/;
