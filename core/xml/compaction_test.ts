import assert from "node:assert/strict";
import type { QueueEntry } from "../schemas/mod.ts";
import {
  COMPACTION_INSTRUCTIONS,
  frameCompactionRequest,
  parseCompactedEntries,
} from "./compaction.ts";
import { frameEntry } from "./framing.ts";

function entry(seq: number, content: string): QueueEntry {
  return {
    seq,
    project_id: "p",
    namespace: `/actor/tester/project/${"a".repeat(64)}/`,
    kind: "tool_use",
    body: { type: "text", content },
    timestamp: "2025-01-15T10:30:00.000Z",
    surface: "kiro-cli",
    source_event_ids: ["01ARZ3NDEKTSV4RRFFQ69G5FAV"],
    compacted: false,
    bytes: content.length,
  };
}

Deno.test("frameCompactionRequest wraps instructions and framed entries", () => {
  const entries = [entry(1, "a < b"), entry(2, "second")];
  const xml = frameCompactionRequest(entries);
  assert.ok(
    xml.startsWith(
      `<compaction_request>\n<instructions>${COMPACTION_INSTRUCTIONS}</instructions>\n<observations>\n`,
    ),
  );
  assert.ok(xml.endsWith("\n</observations>\n</compaction_request>"));
  assert.ok(xml.includes(entries.map(frameEntry).join("\n")));
  assert.ok(xml.includes("a &lt; b"));
});

Deno.test("parseCompactedEntries returns the non-empty unescaped entries", () => {
  const text =
    "Sure.\n<compacted_entry>\n Decided to use &lt;pnpm&gt; \n</compacted_entry>\n<compacted_entry> </compacted_entry><compacted_entry>Second</compacted_entry>";
  assert.deepEqual(parseCompactedEntries(text), ["Decided to use <pnpm>", "Second"]);
});

Deno.test("parseCompactedEntries returns null when there is nothing usable", () => {
  for (
    const text of [
      "",
      "no xml here",
      "<compacted_entry></compacted_entry>",
      "<compacted_entry>unclosed",
    ]
  ) {
    assert.equal(parseCompactedEntries(text), null, text);
  }
});
