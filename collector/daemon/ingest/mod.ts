/**
 * Ingest: the pipeline every event goes through (validate, dedup, scrub, one transaction). The
 * spool drain that feeds it what the hooks wrote while the collector was down is
 * `@kiro-learn/core/spool`'s, beside the writer.
 *
 * @module
 */
export * from "./pipeline.ts";
