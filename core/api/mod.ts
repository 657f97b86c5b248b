/**
 * The collector's HTTP contract, shared by the server and every client: routes, query flags,
 * URL and token (`wire.ts`, also loaded by the hooks), and the one client with its errors
 * (`client.ts`, for the MCP server and the command line).
 *
 * @module
 */
export * from "./client.ts";
export * from "./wire.ts";
