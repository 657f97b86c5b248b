/**
 * Builders for valid events and records with sensible defaults, for example-based tests.
 *
 * @module
 */
import { newEventId, newRecordId } from "../ids.ts";
import type { Event, EventBody, MemoryRecord } from "../schemas/mod.ts";

/** A namespace for tests. */
export const TEST_NAMESPACE = `/actor/tester/project/${"a".repeat(64)}/`;

/** Builds a valid event; fields in `overrides` win. */
export function makeEvent(overrides: Partial<Event> = {}): Event {
  const body: EventBody = { type: "text", content: "hello" };
  return {
    event_id: newEventId(),
    session_id: "session-1",
    actor_id: "tester",
    namespace: TEST_NAMESPACE,
    schema_version: 1,
    kind: "prompt",
    body,
    valid_time: new Date().toISOString(),
    source: { surface: "kiro-cli", version: "0.1.0", client_id: "host", project_path: "/tmp/p" },
    ...overrides,
  };
}

/**
 * Builds a successful Kiro `fs_write` tool use with `toolInput` (what extraction and its tests
 * feed on); fields in `overrides` win.
 */
export function makeFsWriteEvent(
  toolInput: Record<string, unknown>,
  overrides: Partial<Event> = {},
): Event {
  return makeEvent({
    kind: "tool_use",
    body: {
      type: "json",
      data: {
        tool_name: "fs_write",
        tool_input: toolInput,
        tool_response: { success: true, result: [""] },
      },
    },
    ...overrides,
  });
}

/** Builds a valid memory record; fields in `overrides` win. */
export function makeRecord(overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    record_id: newRecordId(),
    namespace: TEST_NAMESPACE,
    strategy: "llm-summary",
    title: "A title",
    summary: "A summary",
    facts: [],
    concepts: [],
    files_touched: [],
    observation_type: "discovery",
    source_event_ids: [newEventId()],
    created_at: new Date().toISOString(),
    ...overrides,
  };
}
