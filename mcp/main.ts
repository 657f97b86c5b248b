/**
 * Entry: the `kiro-learn-memory` MCP server over stdio. Run it with the argv from
 * `mcpCommand` (in `@kiro-learn/core/launch`, so the collector's installer can build it).
 *
 * stdout carries JSON-RPC only; every diagnostic goes to stderr.
 *
 * @module
 */
// @ts-types: see tools.ts (the SDK's wildcard export hides its types from Deno).
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMemoryServer, log, startupContext } from "./server.ts";

/** Starts the server on stdin/stdout and returns once it is connected. */
export async function main(): Promise<void> {
  // A stray console.log from any dependency would corrupt the JSON-RPC stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  // One failed request must never take down the agent's memory tools.
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    log("unhandled rejection:", event.reason);
  });
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    // EPIPE on stdout means the agent has gone; there is nobody left to answer.
    if ((event.error as { code?: string } | undefined)?.code === "EPIPE") Deno.exit(0);
    log("uncaught error:", event.error);
  });

  const context = startupContext();
  const server = createMemoryServer(context);
  await server.connect(new StdioServerTransport());
  log(`ready: namespace ${context.namespace || "(unknown)"}, collector ${context.client.url}`);
}

if (import.meta.main) await main();
