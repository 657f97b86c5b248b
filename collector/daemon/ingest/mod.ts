/**
 * Ingest: the pipeline every event goes through (validate, dedup, scrub, one transaction) and
 * the spool drain that feeds it what the shims wrote while the collector was down.
 *
 * @module
 */
export * from "./pipeline.ts";
export * from "./spool_drain.ts";
