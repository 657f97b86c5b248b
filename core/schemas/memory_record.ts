/**
 * The memory record: one durable thing worth remembering about a project.
 *
 * Wire-compatible with kiro-learn's record JSON. The embedding is not part of the wire shape:
 * storage keeps it beside the record.
 *
 * @module
 */
import { z } from "zod";
import { RECORD_ID_PATTERN, ULID_RULE } from "../ids.ts";
import { NamespaceSchema, UlidSchema } from "./event.ts";
import { RECORD_LIMITS } from "./limits.ts";
import { plainTitle } from "../terminal.ts";

/** The six kinds of observation a record can hold. */
export const OBSERVATION_TYPES = [
  "tool_use",
  "decision",
  "error",
  "discovery",
  "pattern",
  "session_summary",
] as const;

/** How a record was made. */
export const STRATEGIES = [
  "llm-summary",
  "llm-reconciled",
  "heuristic",
  "mcp_observation",
  "mcp_session_summary",
  "git-commit",
] as const;

/** A memory record as it travels over HTTP and is stored. */
export const MemoryRecordSchema = z.object({
  record_id: z.string().regex(RECORD_ID_PATTERN, {
    message: `must be mr_ followed by ${ULID_RULE}`,
  }),
  namespace: NamespaceSchema,
  strategy: z.enum(STRATEGIES),
  // A title is shown on one line in terminals, window titles and logs: its controls (an escape
  // sequence's ESC and BEL among them) are taken out, whoever sends it.
  title: z.string().transform(plainTitle).pipe(z.string().min(1).max(RECORD_LIMITS.title)),
  summary: z.string().min(1).max(RECORD_LIMITS.summary),
  facts: z.array(z.string().min(1).max(RECORD_LIMITS.fact)).max(RECORD_LIMITS.facts).default([]),
  concepts: z.array(z.string().min(1).max(RECORD_LIMITS.concept)).max(RECORD_LIMITS.concepts)
    .default([]),
  files_touched: z.array(z.string().min(1).max(RECORD_LIMITS.file)).max(RECORD_LIMITS.files)
    .default([]),
  observation_type: z.enum(OBSERVATION_TYPES).default("tool_use"),
  source_event_ids: z.array(UlidSchema).min(1).max(RECORD_LIMITS.sourceEventIds),
  created_at: z.iso.datetime({ offset: true }),
});

/** A memory record. */
export type MemoryRecord = z.infer<typeof MemoryRecordSchema>;
/** One of the six observation types. */
export type ObservationType = (typeof OBSERVATION_TYPES)[number];
/** One of the record strategies. */
export type Strategy = (typeof STRATEGIES)[number];
