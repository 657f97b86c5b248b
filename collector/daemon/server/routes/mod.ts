/**
 * The `/v1` API routes, one module per resource.
 *
 * @module
 */
export * from "./events.ts";
export * from "./mcp.ts";
export * from "./memories.ts";
export * from "./stats.ts";
export * from "./hooks.ts";
