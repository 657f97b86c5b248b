/**
 * `POST /v1/mcp`: the `kiro-learn-memory` tools over MCP Streamable HTTP, served by the collector
 * itself so an agent session needs no MCP server process of its own (Claude Code starts a stdio
 * server per session, on the critical path of its start).
 *
 * Stateless: each POST gets a fresh server and transport, answers with JSON, and keeps nothing,
 * so there are no sessions to track or leak. The tools are `@kiro-learn/mcp`'s (one
 * implementation for stdio and HTTP); they reach the collector through `client`, which the app
 * points at its own routes, so every save is scrubbed and checked exactly as an API call is. The
 * bearer token, Host and Origin are checked by the app before this runs; the project comes in
 * {@linkcode MCP_NAMESPACE_HEADER} and must be a valid namespace.
 *
 * @module
 */
import { Hono } from "hono";
import { type CollectorClient, MCP_NAMESPACE_HEADER } from "@kiro-learn/core/api";
import { createMemoryServer } from "@kiro-learn/mcp";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types: the SDK's wildcard export hides its types from Deno (see mcp/tools.ts).
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { errorResponse, namespaceParam } from "../../http/mod.ts";

/** The MCP route; `client` is how its tools reach the collector's API. */
export function mcpRoutes(options: { client: () => CollectorClient }): Hono {
  const app = new Hono();
  const servers = serverPool((namespace) =>
    createMemoryServer({ namespace, client: options.client() })
  );
  app.post("/mcp", async (c) => {
    const raw = c.req.header(MCP_NAMESPACE_HEADER);
    if (raw === undefined || raw === "") {
      return errorResponse(400, "no project", {
        details: `send ${MCP_NAMESPACE_HEADER}: the project's namespace ` +
          "(/actor/<user>/project/<id>/); kiro-learn's MCP headers helper sets it " +
          "(re-run `kiro-learn install` if the agent's MCP entry lacks it)",
      });
    }
    const namespace = namespaceParam(raw, { required: true });
    if (!namespace.ok) return namespace.response;
    const server = servers.take(namespace.value!);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
      servers.give(namespace.value!, server);
    }
  });
  // Stateless: no stream for server-initiated messages, and no session to end (the spec's
  // answer to both is 405).
  return app;
}

/** Idle servers kept per project, and projects kept (least recently used go first). */
const POOL_LIMITS = { perNamespace: 4, namespaces: 32 };

/**
 * Servers closed after their request, kept for the next request of the same project: building
 * one (six tools and their schemas) per request made a burst of requests grow the collector's
 * heap by about 130 MiB; a server serves one transport at a time, so each request takes its own.
 */
function serverPool(create: (namespace: string) => McpServer): {
  take(namespace: string): McpServer;
  give(namespace: string, server: McpServer): void;
} {
  const idle = new Map<string, McpServer[]>();
  return {
    take(namespace) {
      const list = idle.get(namespace);
      return list?.pop() ?? create(namespace);
    },
    give(namespace, server) {
      let list = idle.get(namespace);
      if (list === undefined) {
        if (idle.size >= POOL_LIMITS.namespaces) idle.delete(idle.keys().next().value!);
        list = [];
      }
      // Re-inserted: the map's order is least recently used first.
      idle.delete(namespace);
      idle.set(namespace, list);
      if (list.length < POOL_LIMITS.perNamespace) list.push(server);
    },
  };
}
