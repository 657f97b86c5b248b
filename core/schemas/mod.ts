/**
 * Wire schemas (zod) and their inferred types: events, memory records, queue entries.
 *
 * @module
 */
export * from "./event.ts";
export * from "./memory_record.ts";
export * from "./queue_entry.ts";
export * from "./limits.ts";
export * from "./project.ts";
