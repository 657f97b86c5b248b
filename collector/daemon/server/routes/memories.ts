/**
 * Memory routes: save (scrubbed), list, search, read with sources, edit, forget.
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { scrubText } from "@kiro-learn/core/privacy";
import {
  MAX_REQUEST_BYTES,
  type MemoryRecord,
  MemoryRecordSchema,
  OBSERVATION_TYPES,
  RECORD_LIMITS,
  STRATEGIES,
} from "@kiro-learn/core/schemas";
import { DuplicateRecordError, ForgottenRecordError } from "@kiro-learn/core/storage";
import { DEFAULT_SEARCH_MODE, isSearchMode, SEARCH_MODES } from "../../retrieval/mod.ts";
import { readJsonBody } from "../../http/mod.ts";
import type { CollectorContext } from "../mod.ts";
import { errorResponse } from "../../http/mod.ts";
import { intParam, namespaceParam, offsetParam, recordIdParam } from "../../http/mod.ts";

const EditSchema = z.object({
  title: z.string().min(1).max(RECORD_LIMITS.title).optional(),
  summary: z.string().min(1).max(RECORD_LIMITS.summary).optional(),
  facts: z.array(z.string().min(1).max(RECORD_LIMITS.fact)).max(RECORD_LIMITS.facts).optional(),
  concepts: z.array(z.string().min(1).max(RECORD_LIMITS.concept)).max(RECORD_LIMITS.concepts)
    .optional(),
}).strict();

function scrubCapped(text: string, max: number): string {
  return scrubText(text).slice(0, max);
}

/** Scrubs every free-text field of a record, keeping each within its limit. */
export function scrubRecord(record: MemoryRecord): MemoryRecord {
  return {
    ...record,
    title: scrubCapped(record.title, RECORD_LIMITS.title),
    summary: scrubCapped(record.summary, RECORD_LIMITS.summary),
    facts: record.facts.map((f) => scrubCapped(f, RECORD_LIMITS.fact)),
    concepts: record.concepts.map((f) => scrubCapped(f, RECORD_LIMITS.concept)),
    files_touched: record.files_touched.map((f) => scrubCapped(f, RECORD_LIMITS.file)),
  };
}

/** Memory routes. */
export function memoryRoutes(
  ctx: CollectorContext,
  hooks: { onSaved?: (record: MemoryRecord) => void; onDeleted?: (ids: string[]) => void } = {},
): Hono {
  const app = new Hono();

  app.post("/memories", async (c) => {
    const body = await readJsonBody(c.req.raw, { maxBytes: MAX_REQUEST_BYTES });
    if (!body.ok) return body.response;
    const parsed = MemoryRecordSchema.safeParse(body.value);
    if (!parsed.success) {
      return errorResponse(400, "validation failed", { details: parsed.error.issues });
    }
    const record = scrubRecord(parsed.data);
    try {
      await ctx.storage.putRecord(record);
    } catch (error) {
      if (error instanceof DuplicateRecordError) {
        return errorResponse(409, "conflict", { details: "duplicate record_id" });
      }
      if (error instanceof ForgottenRecordError) {
        return errorResponse(410, "gone", {
          details: "this record_id was forgotten; it is not saved again",
        });
      }
      throw error;
    }
    hooks.onSaved?.(record);
    return c.json({ record_id: record.record_id, stored: true });
  });

  app.get("/memories/search", async (c) => {
    const ns = namespaceParam(c.req.query("namespace"), { required: true });
    if (!ns.ok) return ns.response;
    const query = c.req.query("query") ?? "";
    if (query.trim() === "") return errorResponse(400, "query parameter is required");
    if (query.length > 10_000) return errorResponse(400, "parameter too long");
    const limit = intParam(c.req.query("limit"), { name: "limit", fallback: 10, min: 1, max: 100 });
    if (!limit.ok) return limit.response;
    const mode = c.req.query("mode") ?? DEFAULT_SEARCH_MODE;
    if (!isSearchMode(mode)) {
      return errorResponse(400, "invalid mode", {
        details: `mode must be one of ${SEARCH_MODES.join(", ")} (default ${DEFAULT_SEARCH_MODE})`,
      });
    }
    const hits = await ctx.search(ns.value!, scrubText(query), { limit: limit.value, mode });
    return c.json(hits.map((h) => h.record));
  });

  app.get("/memories", async (c) => {
    const ns = namespaceParam(c.req.query("namespace"), { required: false });
    if (!ns.ok) return ns.response;
    const limit = intParam(c.req.query("limit"), {
      name: "limit",
      fallback: 100,
      min: 1,
      max: 500,
    });
    if (!limit.ok) return limit.response;
    const offset = offsetParam(c.req.query("offset"));
    if (!offset.ok) return offset.response;
    const type = c.req.query("observation_type");
    if (type && !(OBSERVATION_TYPES as readonly string[]).includes(type)) {
      return errorResponse(400, "invalid observation_type", { details: OBSERVATION_TYPES });
    }
    const strategy = c.req.query("strategy");
    if (strategy && !(STRATEGIES as readonly string[]).includes(strategy)) {
      return errorResponse(400, "invalid strategy", { details: STRATEGIES });
    }
    const since = c.req.query("since");
    if (since && Number.isNaN(Date.parse(since))) {
      return errorResponse(400, "since must be an ISO date");
    }
    const page = await ctx.storage.listRecords({
      namespace: ns.value,
      observation_type: type ? type as MemoryRecord["observation_type"] : undefined,
      strategy: strategy ? strategy as MemoryRecord["strategy"] : undefined,
      since: since || undefined,
      limit: limit.value,
      offset: offset.value,
    });
    return c.json({ ...page, limit: limit.value, offset: offset.value });
  });

  app.get("/memories/:id", async (c) => {
    const id = recordIdParam(c.req.param("id"));
    if (!id.ok) return id.response;
    const [record] = await ctx.storage.getRecords([id.value]);
    if (!record) return errorResponse(404, "memory not found");
    const source_events = await ctx.storage.getEvents(record.source_event_ids.slice(0, 100));
    // Who and which machine a teammate's record came from; null for one made here.
    const provenance = ctx.storage.teamProvenance([record.record_id]).get(record.record_id) ?? null;
    return c.json({ record, source_events, provenance });
  });

  app.patch("/memories/:id", async (c) => {
    const id = recordIdParam(c.req.param("id"));
    if (!id.ok) return id.response;
    const body = await readJsonBody(c.req.raw, { maxBytes: MAX_REQUEST_BYTES });
    if (!body.ok) return body.response;
    const parsed = EditSchema.safeParse(body.value);
    if (!parsed.success) {
      return errorResponse(400, "validation failed", { details: parsed.error.issues });
    }
    const patch = parsed.data;
    const updated = await ctx.storage.updateRecord(id.value, {
      title: patch.title === undefined ? undefined : scrubCapped(patch.title, RECORD_LIMITS.title),
      summary: patch.summary === undefined
        ? undefined
        : scrubCapped(patch.summary, RECORD_LIMITS.summary),
      facts: patch.facts?.map((f) => scrubCapped(f, RECORD_LIMITS.fact)),
      concepts: patch.concepts?.map((f) => scrubCapped(f, RECORD_LIMITS.concept)),
    });
    if (!updated) return errorResponse(404, "memory not found");
    hooks.onSaved?.(updated);
    return c.json(updated);
  });

  app.delete("/memories/:id", async (c) => {
    const param = recordIdParam(c.req.param("id"));
    if (!param.ok) return param.response;
    const id = param.value;
    const withSources = c.req.query("with_sources") === "true";
    const forgotten = await ctx.storage.forgetRecords([id], { withSources });
    if (forgotten.records === 0) return errorResponse(404, "memory not found");
    hooks.onDeleted?.([id]);
    return c.json({ record_id: id, deleted: true, source_events_deleted: forgotten.events });
  });

  return app;
}
