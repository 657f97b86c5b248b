/**
 * The collector's HTTP app: guards, routes, 404/405 and the no-stack-trace error handler.
 *
 * @module
 */
import { Hono } from "hono";
import {
  collectorProof,
  eventQueryOf,
  HELLO_NONCE_PARAM,
  HELLO_NONCE_PATTERN,
  HOOK_ROUTES,
  ROUTES,
} from "@kiro-learn/core/api/wire";
import { type CollectorClient, createCollectorClient } from "@kiro-learn/core/api";
import { VERSION } from "@kiro-learn/core/version";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { createLatencies } from "../runtime/mod.ts";
import { createViewer, LOGIN_PATH } from "../viewer/mod.ts";
import type { CollectorContext } from "./context.ts";
import { errorResponse } from "../http/mod.ts";
import { ingestOptions } from "../ingest/mod.ts";
import { eventRoutes, hookRoutes, mcpRoutes } from "./routes/mod.ts";
import { memoryRoutes } from "./routes/mod.ts";
import { statsRoutes } from "./routes/mod.ts";
import { allowedHosts, allowedOrigins, checkBearer, checkHostAndOrigin } from "../http/mod.ts";

/** Methods each API path answers; anything else gets 405 with an `Allow` header. */
const ALLOWED_METHODS: Record<string, string[]> = {
  "/healthz": ["GET"],
  "/hello": ["GET"],
  "/v1/events": ["GET", "POST"],
  "/v1/memories": ["GET", "POST"],
  "/v1/memories/search": ["GET"],
  "/v1/memories/:id": ["GET", "PATCH", "DELETE"],
  "/v1/stats": ["GET"],
  "/v1/projects/identity": ["POST"],
  "/v1/retrievals": ["GET"],
  "/v1/runs": ["GET"],
  "/v1/merges": ["GET"],
  "/v1/extraction/flush": ["POST"],
  "/v1/feed": ["GET"],
  "/v1/ui/codes": ["POST"],
  "/v1/mcp": ["POST"],
  "/v1/hooks/claude-code": ["POST"],
  "/v1/hooks/codex": ["POST"],
  "/v1/hooks/gemini-cli": ["POST"],
  "/v1/hooks/copilot-cli": ["POST"],
  "/v1/mcp/headers": ["POST"],
};

/** The agents' hook routes (the launchers' fast path), whose firings the hook latency counts. */
const HOOK_ROUTE_PATHS: ReadonlySet<string> = new Set(Object.values(HOOK_ROUTES));

/** Hooks the rest of the collector attaches to API actions. */
export interface AppHooks {
  /** A record was saved or edited through the API. */
  onRecordSaved?: (record: MemoryRecord) => void;
  /** Records were forgotten through the API. */
  onRecordsDeleted?: (ids: string[]) => void;
}

/**
 * Pages another site may open: the viewer's login page, which `kiro-learn open` reaches from a
 * `file://` page (a cross-site navigation) and which holds nothing.
 */
const VIEWER_ENTRIES = new Set([LOGIN_PATH]);

/** Builds the app. */
export function createApp(ctx: CollectorContext, hooks: AppHooks = {}): Hono {
  const app = new Hono();
  const hosts = allowedHosts(ctx.settings.collector.port, { host: ctx.settings.collector.host });
  const origins = allowedOrigins(ctx.settings.collector.port, {
    host: ctx.settings.collector.host,
  });
  const latency = ctx.latency ??= createLatencies();
  const viewer = createViewer(ctx, { origins });
  let selfClient: CollectorClient | undefined;
  ctx.viewer = viewer;

  app.use("*", async (c, next) => {
    const started = performance.now();
    const refused = checkHostAndOrigin(c.req.raw, { hosts, origins, entries: VIEWER_ENTRIES });
    if (refused) {
      c.res = refused;
    } else {
      await next();
      if (c.req.method === "POST" && c.req.path === ROUTES.events && c.res.status === 200) {
        const asked = ingestOptions(eventQueryOf({ get: (name) => c.req.query(name) ?? null }));
        const retrieval = asked.retrieve || asked.resume;
        (retrieval ? latency.retrieval : latency.ingest).record(performance.now() - started);
      } else if (HOOK_ROUTE_PATHS.has(c.req.path) && c.res.status === 200) {
        latency.hook.record(performance.now() - started);
      }
    }
    // No response is ever sniffed into another type (a JSON error rendered as HTML, say).
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    if (ctx.logger.debugEnabled) {
      ctx.logger.debug("request", {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 100) / 100,
      });
    }
  });

  app.use("/v1/*", async (c, next) => {
    const refused = checkBearer(c.req.raw, ctx.token);
    if (refused) {
      // The viewer's session cookie is the browser's alternative to the bearer token.
      const session = viewer.checkSession(c.req.raw);
      if (session === "absent") return refused;
      if (session instanceof Response) return session;
    }
    await next();
  });

  app.get("/healthz", (c) => c.json({ status: "ok", version: VERSION, pid: Deno.pid }));
  app.get(ROUTES.hello, async (c) => {
    const nonce = c.req.query(HELLO_NONCE_PARAM) ?? "";
    if (!HELLO_NONCE_PATTERN.test(nonce)) {
      return errorResponse(400, "bad nonce", {
        details: `send ?${HELLO_NONCE_PARAM}= with 32 lowercase hex characters`,
      });
    }
    const port = ctx.settings.collector.port;
    return c.json({ proof: await collectorProof(ctx.token, { port, nonce }) });
  });
  // A person who types the collector's address into a browser wants the viewer.
  app.get("/", (c) => c.redirect("/ui", 302));
  app.route("/v1", eventRoutes(ctx));
  app.route("/v1", hookRoutes(ctx));
  app.route(
    "/v1",
    memoryRoutes(ctx, { onSaved: hooks.onRecordSaved, onDeleted: hooks.onRecordsDeleted }),
  );
  app.route("/v1", statsRoutes(ctx));
  app.route("/v1", mcpRoutes({ client: () => selfClient ??= inProcessClient(app, ctx) }));
  app.route("/v1", viewer.api);
  app.route("/ui", viewer.pages);

  for (const [path, methods] of Object.entries(ALLOWED_METHODS)) {
    app.all(
      path,
      () => errorResponse(405, "method not allowed", { headers: { allow: methods.join(", ") } }),
    );
  }
  app.notFound(() => errorResponse(404, "not found"));
  app.onError((error) => {
    ctx.logger.error("request failed", {
      error: error instanceof Error ? error.message : String(error),
    });
    return errorResponse(500, "internal error");
  });
  return app;
}

/**
 * A collector client whose requests go straight into `app` (no socket): the MCP tools the
 * collector serves call the same routes, with the same token and checks, as the stdio server.
 */
function inProcessClient(app: Hono, ctx: CollectorContext): CollectorClient {
  const { host, port } = ctx.settings.collector;
  return createCollectorClient({
    host,
    port,
    tokenPath: ctx.settings.paths.token,
    fetch: (request) => {
      // A Request built from a URL carries no Host header; the Host guard wants ours.
      const headers = new Headers(request.headers);
      headers.set("host", new URL(request.url).host);
      return Promise.resolve(app.fetch(new Request(request, { headers })));
    },
  });
}
