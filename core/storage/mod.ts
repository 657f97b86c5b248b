/**
 * Storage: the backend-neutral interface and its SQLite implementation.
 *
 * @module
 */
export * from "./types.ts";
export * from "./sqlite.ts";
export * from "./migrations.ts";
export * from "./embedding_blob.ts";
export * from "./write_turns.ts";
export { isDatabaseBusy } from "./_connection.ts";
