/**
 * `GET /v1/stats` and `GET /v1/retrievals` (the "why was this injected" data).
 *
 * @module
 */
import { Hono } from "hono";
import type { CollectorContext } from "../context.ts";
import { intParam, namespaceParam } from "../params.ts";

/** Stats and audit routes. */
export function statsRoutes(ctx: CollectorContext): Hono {
  const app = new Hono();
  app.get("/stats", async (c) => {
    const ns = namespaceParam(c.req.query("namespace"), { required: false });
    if (!ns.ok) return ns.response;
    const stats = await ctx.storage.stats({ namespace: ns.value });
    return c.json({ ...stats, queue: await ctx.storage.queueDepths(), ...ctx.status?.() });
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
  return app;
}
