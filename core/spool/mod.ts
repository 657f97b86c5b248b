/**
 * The spool of events a shim could not deliver: its file format, the writer the shims use and
 * the status the `kiro-learn` CLI reports, and the drain that reads it back into the collector. Dependency-free (no npm or node modules), because
 * every hook loads it.
 *
 * @module
 */
export {
  DROPPED_LOG,
  DROPPED_LOG_MAX_BYTES,
  REJECTED_DIR,
  REJECTED_MAX_BYTES,
  REJECTED_MAX_FILES,
  SPOOL_FILE_PATTERN,
  SPOOL_FILLING_SHARE,
  SPOOL_SUFFIX,
  spoolEvent,
  type SpoolEventOptions,
  spoolFilling,
  type SpoolOutcome,
  type SpoolQuery,
  type SpoolRecord,
  type SpoolStatus,
  spoolStatus,
  type SpoolStatusOptions,
} from "./spool.ts";
export {
  drainSpool,
  type DrainSpoolOptions,
  type DrainSpoolResult,
  type SpoolDrainLogger,
  type SpoolIngest,
} from "./drain.ts";
