/**
 * The event: one thing that happened in an agent session, as a shim posts it.
 *
 * Wire-compatible with kiro-learn's schema version 1 (additive only), plus the `claude-code`
 * surface.
 *
 * @module
 */
import { z } from "zod";
import { ULID_PATTERN, ULID_RULE } from "../ids.ts";
import {
  MAX_EVENT_BODY_CHARS,
  MAX_NAMESPACE,
  MAX_PROJECT_PATH,
  NAMESPACE_PATTERN,
} from "./limits.ts";

/** The agents we capture from. */
export const SURFACES = [
  "kiro-cli",
  "kiro-ide",
  "claude-code",
  "codex",
  "gemini-cli",
  "copilot-cli",
] as const;

/** What an event records. */
export const EVENT_KINDS = ["prompt", "tool_use", "session_summary", "note"] as const;

/** A namespace string. */
export const NamespaceSchema = z.string().max(MAX_NAMESPACE).regex(NAMESPACE_PATTERN, {
  message: "namespace must look like /actor/<user>/project/<id>/",
});

/** A ULID string. */
export const UlidSchema = z.string().regex(ULID_PATTERN, { message: `must be ${ULID_RULE}` });

/** Plain text body. */
export const TextBodySchema = z.object({
  type: z.literal("text"),
  content: z.string().max(MAX_EVENT_BODY_CHARS),
});

/** Conversation body: one or more turns. */
export const MessageBodySchema = z.object({
  type: z.literal("message"),
  turns: z.array(z.object({ role: z.string().min(1), content: z.string() })).min(1),
});

/** Structured body, for example a tool call with its input and response. */
export const JsonBodySchema = z.object({
  type: z.literal("json"),
  data: z.unknown(),
});

/** Any event body, discriminated on `type`, at most 1 MiB serialised. */
export const EventBodySchema = z
  .discriminatedUnion("type", [TextBodySchema, MessageBodySchema, JsonBodySchema])
  .refine((body) => (JSON.stringify(body)?.length ?? 0) <= MAX_EVENT_BODY_CHARS, {
    message: `body must serialise to at most ${MAX_EVENT_BODY_CHARS} characters`,
  });

/** Where an event came from. */
export const EventSourceSchema = z.object({
  surface: z.enum(SURFACES),
  version: z.string().min(1).max(64),
  client_id: z.string().min(1).max(256),
  project_path: z.string().min(1).max(MAX_PROJECT_PATH).optional(),
});

/** The event as it travels from a shim to the collector. */
export const EventSchema = z.object({
  event_id: UlidSchema,
  parent_event_id: UlidSchema.optional(),
  session_id: z.string().min(1).max(128),
  actor_id: z.string().min(1).max(128),
  namespace: NamespaceSchema,
  schema_version: z.literal(1),
  kind: z.enum(EVENT_KINDS),
  body: EventBodySchema,
  valid_time: z.iso.datetime({ offset: true }),
  source: EventSourceSchema,
  content_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/).optional(),
});

/** An event (wire shape). */
export type Event = z.infer<typeof EventSchema>;
/** An event body. */
export type EventBody = z.infer<typeof EventBodySchema>;
/** An event kind. */
export type EventKind = (typeof EVENT_KINDS)[number];
/** A capture surface. */
export type Surface = (typeof SURFACES)[number];
