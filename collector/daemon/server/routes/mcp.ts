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
 * Both protocol eras are served. A 2025 client opens with `initialize`, `notifications/initialized`
 * and a GET for a stream (405) before it lists the tools. A 2026-07-28 client (Claude Code) first
 * probes `server/discover`; answered, it lists the tools at once, sparing those three requests on
 * the path to the session's first model request. The SDK in use speaks only the 2025 revisions, so
 * this route answers the probe itself and hands the SDK the later requests under the newest 2025
 * version, which means the same for what these tools use (the tool list and calls), then adds to
 * each answer what 2026-07-28 requires of a result.
 *
 * @module
 */
import { Hono } from "hono";
import { type CollectorClient, MCP_NAMESPACE_HEADER } from "@kiro-learn/core/api";
import { z } from "zod";
import { createMemoryServer, SERVER_DESCRIPTION } from "@kiro-learn/mcp";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types: the SDK's wildcard export hides its types from Deno (see mcp/tools.ts).
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { errorResponse, namespaceParam, readJsonBody } from "../../http/mod.ts";

/** The stateless protocol revision this route serves beside the SDK's 2025 ones. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** Headers a 2026-07-28 client sends with every request. */
const HEADERS = { method: "mcp-method", version: "mcp-protocol-version" } as const;

/** The probe is a few hundred bytes; the cap only bounds what a broken client can make us read. */
const DISCOVER_MAX_BYTES = 64 * 1024;

/** A `server/discover` request (its `params._meta` says who asks; nothing in it changes the answer). */
const DiscoverRequest = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number()]),
  method: z.literal("server/discover"),
  params: z.record(z.string(), z.unknown()).optional(),
});

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
    const method = c.req.header(HEADERS.method);
    if (method === "server/discover") return await discover(c.req.raw);
    const modern = c.req.header(HEADERS.version) === MODERN_PROTOCOL_VERSION;
    const server = servers.take(namespace.value!);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      if (!modern) return await transport.handleRequest(c.req.raw);
      return asModern(await transport.handleRequest(asLatest2025(c.req.raw)), {
        list: method === "tools/list",
      });
    } finally {
      await server.close();
      servers.give(namespace.value!, server);
    }
  });
  // Stateless: no stream for server-initiated messages, and no session to end (the spec's
  // answer to both is 405).
  return app;
}

/**
 * The answer to a 2026-07-28 client's probe: the one version it may speak here, and what
 * `initialize` would have said (server, capabilities, instructions), from the same description.
 */
async function discover(request: Request): Promise<Response> {
  const body = await readJsonBody(request, { maxBytes: DISCOVER_MAX_BYTES });
  if (!body.ok) return body.response;
  const parsed = DiscoverRequest.safeParse(body.value);
  if (!parsed.success) {
    return errorResponse(400, "invalid server/discover request", {
      details: `the ${HEADERS.method} header says server/discover, so the body must be that ` +
        'JSON-RPC request ({"jsonrpc": "2.0", "id": ..., "method": "server/discover"}): ' +
        z.prettifyError(parsed.error),
    });
  }
  return Response.json({
    jsonrpc: "2.0",
    id: parsed.data.id,
    result: {
      supportedVersions: [MODERN_PROTOCOL_VERSION],
      capabilities: SERVER_DESCRIPTION.capabilities,
      instructions: SERVER_DESCRIPTION.instructions,
      // Nothing here changes while the collector runs, but a new version of it may differ:
      // not cached, and never shared between users.
      ttlMs: 0,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": SERVER_DESCRIPTION.serverInfo },
    },
  });
}

/** The request as the SDK accepts it: its transport refuses a version header it does not know. */
function asLatest2025(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.set(HEADERS.version, LATEST_PROTOCOL_VERSION);
  return new Request(request, { headers });
}

/**
 * An answer in 2026-07-28's terms: every result says it is complete (no input is asked for), and a
 * list result (the tools', the only list these tools serve) says how long it may be cached, and by
 * whom. Claude Code fills in these very defaults when they are missing, but logs that the server
 * broke the rule.
 */
async function asModern(response: Response, options: { list: boolean }): Promise<Response> {
  if (response.status !== 200) return response;
  const body = await response.json();
  if (typeof body?.result === "object" && body.result !== null) {
    const hints = options.list ? { ttlMs: 0, cacheScope: "private" } : {};
    body.result = { resultType: "complete", ...hints, ...body.result };
  }
  const headers = new Headers(response.headers);
  // The body grew: a length the SDK may have set no longer holds.
  headers.delete("content-length");
  return Response.json(body, { headers });
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
