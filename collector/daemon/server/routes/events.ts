/**
 * `POST /v1/events` (ingest, with inline retrieval for prompts), `GET /v1/events`, and
 * `POST /v1/projects/identity` (a client names its project; the pipeline moves the project's
 * older namespace, as a first event would).
 *
 * @module
 */
import { Hono } from "hono";
import { eventQueryOf } from "@kiro-learn/core/api/wire";
import { MAX_REQUEST_BYTES, ProjectIdentityRequestSchema } from "@kiro-learn/core/schemas";
import { readJsonBody } from "../../http/mod.ts";
import { ingestOptions } from "../../ingest/mod.ts";
import type { CollectorContext } from "../mod.ts";
import { errorResponse } from "../../http/mod.ts";
import { intParam, namespaceParam, offsetParam } from "../../http/mod.ts";

/** Event routes. */
export function eventRoutes(ctx: CollectorContext): Hono {
  const app = new Hono();
  app.post("/events", async (c) => {
    const body = await readJsonBody(c.req.raw, { maxBytes: MAX_REQUEST_BYTES });
    if (!body.ok) return body.response;
    const query = eventQueryOf({ get: (name) => c.req.query(name) ?? null });
    const outcome = await ctx.pipeline.ingest(body.value, ingestOptions(query));
    if (!outcome.ok) return errorResponse(400, outcome.error, { details: outcome.details });
    const { ok: _ok, ...payload } = outcome;
    return c.json(payload);
  });
  app.post("/projects/identity", async (c) => {
    const body = await readJsonBody(c.req.raw, { maxBytes: MAX_REQUEST_BYTES });
    if (!body.ok) return body.response;
    const parsed = ProjectIdentityRequestSchema.safeParse(body.value);
    if (!parsed.success) {
      return errorResponse(400, "validation failed", { details: parsed.error.issues });
    }
    const { namespace, project_path } = parsed.data;
    const moved = await ctx.pipeline.identifyProject(namespace, project_path);
    return c.json({ namespace, moved });
  });
  app.get("/events", async (c) => {
    const ns = namespaceParam(c.req.query("namespace"), { required: false });
    if (!ns.ok) return ns.response;
    const limit = intParam(c.req.query("limit"), { name: "limit", fallback: 50, min: 1, max: 200 });
    if (!limit.ok) return limit.response;
    const offset = offsetParam(c.req.query("offset"));
    if (!offset.ok) return offset.response;
    return c.json(
      await ctx.storage.listEvents({
        namespace: ns.value,
        limit: limit.value,
        offset: offset.value,
      }),
    );
  });
  return app;
}
