/**
 * The six memory tools, registered on the SDK's high-level `McpServer` with zod input schemas
 * (the SDK validates arguments before a handler runs and answers violations with an error
 * result naming the field).
 *
 * Every handler turns a failure into an MCP error result (`isError: true`) instead of throwing:
 * a collector that is down or slow must cost the agent one readable message, never the server.
 *
 * @module
 */
// The SDK's "./*" export maps `x.js` to a missing `x.js.d.ts`, so Deno would type these
// imports as `any`; @ts-types points the checker at the real declarations.
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { newEventId, newRecordId, RECORD_ID_PATTERN } from "@kiro-learn/core/ids";
import { type MemoryRecord, OBSERVATION_TYPES, RECORD_LIMITS } from "@kiro-learn/core/schemas";
import { type CollectorClient, CollectorError, type MemoryWithSources } from "@kiro-learn/core/api";
import { formatActivity, formatFullRecords, formatRecordList, NO_MATCHES_TEXT } from "./_format.ts";
import { buildSessionSummaryRecord } from "./session_summary.ts";

/** What every tool works against: this project's namespace and the collector. */
export interface ToolContext {
  /** The project namespace, fixed for the life of the server. */
  namespace: string;
  /** The collector client. */
  client: CollectorClient;
}

/** Names of the registered tools, in registration order. */
export const TOOL_NAMES = [
  "search_memory",
  "get_memories",
  "recent_activity",
  "save_observation",
  "save_session_summary",
  "forget_memory",
] as const;

/** The types an agent may save with `save_observation` (summaries have their own tool). */
export const SAVEABLE_OBSERVATION_TYPES = [
  "tool_use",
  "decision",
  "error",
  "discovery",
  "pattern",
] as const;

/** Upper bound on each free-text field of `save_session_summary` before formatting. */
export const MAX_SESSION_FIELD_CHARS = 100_000;

/** Upper bound on each file list of `save_session_summary`. */
export const MAX_SESSION_FILES = 1000;

// The search endpoint has no type filter, so a filtered search reads this many hits and
// filters them here; the endpoint's own maximum.
const FILTERED_SEARCH_DEPTH = 100;

const recordId = z.string().regex(RECORD_ID_PATTERN, {
  message: "must be a memory record id: mr_ followed by 26 ULID characters",
});

/** Registers every memory tool on `server`. */
export function registerTools(server: McpServer, context: ToolContext): void {
  const { client, namespace } = context;

  server.registerTool("search_memory", {
    title: "Search project memory",
    description: "Search this project's memories (decisions, errors, discoveries, patterns, " +
      "session summaries) by keywords. Returns ranked records with their ids; pass ids to " +
      "get_memories for the full text.",
    inputSchema: {
      query: text(1000).describe("What to look for: keywords, an error message, a file name."),
      limit: z.number().int().min(1).max(100).default(10).describe(
        "Most records to return (1–100, default 10).",
      ),
      observation_type: z.enum(OBSERVATION_TYPES).optional().describe(
        "Only return records of this type.",
      ),
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, (args) =>
    guard(async () => {
      const depth = args.observation_type === undefined ? args.limit : FILTERED_SEARCH_DEPTH;
      const hits = await client.search(namespace, args.query, { limit: depth });
      const records = hits
        .filter((r) =>
          args.observation_type === undefined || r.observation_type === args.observation_type
        )
        .slice(0, args.limit);
      return ok(records.length === 0 ? NO_MATCHES_TEXT : formatRecordList(records));
    }));

  server.registerTool("get_memories", {
    title: "Read memories in full",
    description: "Fetch complete memory records by id: title, type, summary, facts, concepts, " +
      "files, source event ids and creation time. Unknown ids are listed as not found.",
    inputSchema: {
      ids: z.array(recordId).min(1).max(50).describe("Record ids (mr_…), 1–50."),
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, (args) =>
    guard(async () => {
      const ids = [...new Set(args.ids)];
      const entries = await Promise.all(ids.map((id) => client.getMemory(id)));
      const found: MemoryWithSources[] = [];
      const missing: string[] = [];
      entries.forEach((entry, i) => {
        // Another project's record counts as missing: ids must not leak across projects.
        if (entry !== null && entry.record.namespace === namespace) found.push(entry);
        else missing.push(ids[i]);
      });
      return ok(formatFullRecords(found, missing));
    }));

  server.registerTool("recent_activity", {
    title: "Recent project activity",
    description: "This project's latest memories, newest first: session summaries and the " +
      "records extracted or saved since, with their ids.",
    inputSchema: {
      limit: z.number().int().min(1).max(50).default(10).describe(
        "Most records to return (1–50, default 10).",
      ),
      since: z.string().refine((s) => isIsoDate(s), {
        message: "must be an ISO 8601 date or date-time, e.g. 2025-01-31 or 2025-01-31T09:00:00Z",
      }).optional().describe("Only records created at or after this date (ISO 8601)."),
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, (args) =>
    guard(async () => {
      // Stored times are UTC ISO strings compared as text, so normalise offsets and plain dates.
      const since = args.since === undefined ? undefined : new Date(args.since).toISOString();
      const page = await client.listMemories(namespace, { limit: args.limit, since });
      return ok(formatActivity(page.items, page.total));
    }));

  server.registerTool("save_observation", {
    title: "Save an observation",
    description: "Store one thing worth remembering about this project (a decision, an error " +
      "and its fix, a discovery, a pattern, a notable tool use). Secrets and <private> spans are " +
      "redacted before storage.",
    inputSchema: {
      title: text(RECORD_LIMITS.title).describe("Short title (1–200 characters)."),
      summary: text(RECORD_LIMITS.summary).describe("What to remember (1–4000 characters)."),
      observation_type: z.enum(SAVEABLE_OBSERVATION_TYPES).describe("Kind of observation."),
      concepts: z.array(text(RECORD_LIMITS.concept)).max(RECORD_LIMITS.concepts).default([])
        .describe("Keywords (≤ 50, each ≤ 100 characters)."),
      files_touched: z.array(text(RECORD_LIMITS.file)).max(100).default([]).describe(
        "Related file paths (≤ 100).",
      ),
      facts: z.array(text(RECORD_LIMITS.fact)).max(RECORD_LIMITS.facts).default([]).describe(
        "Standalone facts (≤ 50, each ≤ 500 characters).",
      ),
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
  }, (args) =>
    guard(async () => {
      const record: MemoryRecord = {
        record_id: newRecordId(),
        namespace,
        strategy: "mcp_observation",
        title: args.title,
        summary: args.summary,
        facts: unique(args.facts),
        concepts: unique(args.concepts),
        files_touched: unique(args.files_touched),
        observation_type: args.observation_type,
        // Synthetic: the MCP path creates no event, but every record needs a source id.
        source_event_ids: [newEventId()],
        created_at: new Date().toISOString(),
      };
      const id = await client.saveMemory(record);
      return ok(`Saved observation ${id}`);
    }));

  server.registerTool("save_session_summary", {
    title: "Save a session summary",
    description: "Record a structured summary of this turn: the request, what was investigated, " +
      "learned and completed, next steps, and the files read and modified. Stored directly as " +
      "a session_summary memory.",
    inputSchema: {
      request: text(MAX_SESSION_FIELD_CHARS).describe("What the user asked for."),
      investigated: sessionField().describe("What was explored."),
      learned: sessionField().describe("Key findings or discoveries."),
      completed: sessionField().describe("What was delivered."),
      next_steps: sessionField().describe("Suggested follow-ups."),
      files_read: fileList().describe("Files read during the turn."),
      files_modified: fileList().describe("Files modified during the turn."),
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
  }, (args) =>
    guard(async () => {
      const record = buildSessionSummaryRecord(args, { namespace });
      const id = await client.saveMemory(record);
      return ok(`Saved session summary ${id}`);
    }));

  server.registerTool("forget_memory", {
    title: "Forget a memory",
    description: "Permanently delete one of this project's memory records by id.",
    inputSchema: { id: recordId.describe("The record id (mr_…).") },
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
  }, (args) =>
    guard(async () => {
      const entry = await client.getMemory(args.id);
      if (entry === null || entry.record.namespace !== namespace) {
        return fail(`No memory ${args.id} in this project (nothing was deleted).`);
      }
      if (!await client.deleteMemory(args.id)) {
        return fail(`No memory ${args.id} in this project (nothing was deleted).`);
      }
      return ok(`Forgot ${args.id}`);
    }));
}

/** A successful text result. */
export function ok(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }] };
}

/** An error result (`isError: true`) whose text starts with `Error: `. */
export function fail(message: string): CallToolResult {
  return { content: [{ type: "text", text: `Error: ${message}` }], isError: true };
}

async function guard(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CollectorError) return fail(error.message);
    // Unexpected: keep the details for the log (stderr), give the agent the gist.
    console.error("[kiro-learn-memory] tool failed:", error);
    return fail(`kiro-learn-memory failed unexpectedly: ${(error as Error)?.message ?? error}`);
  }
}

/** A required, trimmed, non-blank string of at most `max` characters. */
function text(max: number) {
  return z.string().trim().min(1).max(max);
}

function sessionField() {
  return z.string().max(MAX_SESSION_FIELD_CHARS);
}

function fileList() {
  return z.array(z.string().max(RECORD_LIMITS.file)).max(MAX_SESSION_FILES);
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function isIsoDate(value: string): boolean {
  const isoShape =
    /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
  return isoShape.test(value.trim()) && !Number.isNaN(Date.parse(value));
}
