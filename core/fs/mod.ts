/**
 * File-system helpers every process shares (npm-free: the hooks load them).
 *
 * @module
 */
export * from "./atomic_write.ts";
