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
// @ts-types: the SDK's wildcard export hides its types from Deno (see mcp/tools.ts).
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { errorResponse, namespaceParam } from "../../http/mod.ts";

/** The MCP route; `client` is how its tools reach the collector's API. */
export function mcpRoutes(options: { client: () => CollectorClient }): Hono {
  const app = new Hono();
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
    const server = createMemoryServer({ namespace: namespace.value!, client: options.client() });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  // Stateless: no stream for server-initiated messages, and no session to end (the spec's
  // answer to both is 405).
  return app;
}
