/**
 * `GET /v1/stats` and `GET /v1/retrievals` (the "why was this injected" data).
 *
 * @module
 */
import { Hono } from "hono";
import { PROJECT_ID_PATTERN } from "@kiro-learn/core/project";
import type { CollectorContext } from "../mod.ts";
import { intParam, namespaceParam } from "../../http/mod.ts";

/** Stats and audit routes. */
export function statsRoutes(ctx: CollectorContext): Hono {
  const app = new Hono();
  app.get("/stats", async (c) => {
    const ns = namespaceParam(c.req.query("namespace"), { required: false });
    if (!ns.ok) return ns.response;
    const stats = await ctx.storage.stats({ namespace: ns.value });
    return c.json({
      ...stats,
      queue: await ctx.storage.queueDepths(),
      extraction: await ctx.extraction?.status(),
      latency: ctx.latency && {
        ingest: ctx.latency.ingest.summary(),
        retrieval: ctx.latency.retrieval.summary(),
        hook: ctx.latency.hook.summary(),
      },
      ...ctx.status?.(),
    });
  });
  app.get("/retrievals", async (c) => {
    const ns = namespaceParam(c.req.query("namespace"), { required: false });
    if (!ns.ok) return ns.response;
    const limit = intParam(c.req.query("limit"), { name: "limit", fallback: 50, min: 1, max: 500 });
    if (!limit.ok) return limit.response;
    return c.json({
      items: await ctx.storage.listRetrievals({ namespace: ns.value, limit: limit.value }),
    });
  });
  app.get("/merges", async (c) => {
    const ns = namespaceParam(c.req.query("namespace"), { required: false });
    if (!ns.ok) return ns.response;
    const limit = intParam(c.req.query("limit"), { name: "limit", fallback: 50, min: 1, max: 500 });
    if (!limit.ok) return limit.response;
    const summary = c.req.query("summary_id");
    return c.json({
      items: await ctx.storage.listMerges({
        namespace: ns.value,
        summary_id: summary || undefined,
        limit: limit.value,
      }),
    });
  });
  app.get("/runs", async (c) => {
    const limit = intParam(c.req.query("limit"), { name: "limit", fallback: 50, min: 1, max: 500 });
    if (!limit.ok) return limit.response;
    return c.json({ items: await ctx.storage.listRuns({ limit: limit.value }) });
  });
  app.post("/extraction/flush", async (c) => {
    const projectId = c.req.query("project_id");
    if (!projectId || !PROJECT_ID_PATTERN.test(projectId)) {
      return c.json({
        error: "project_id parameter is required: 64 hex chars, git- prefixed for a remote's",
      }, 400);
    }
    await ctx.extraction?.flush(projectId);
    return c.json({ project_id: projectId, flushed: true });
  });
  return app;
}
