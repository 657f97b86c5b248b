import assert from "node:assert/strict";
import fc from "fast-check";
import { ULID_PATTERN } from "@kiro-learn/core/ids";
import { MemoryRecordSchema, RECORD_LIMITS } from "@kiro-learn/core/schemas";
import {
  buildSessionSummaryRecord,
  cutToLength,
  formatSessionSummary,
  SESSION_SUMMARY_HEADINGS,
  type SessionSummaryInput,
  sessionTitle,
  SUMMARY_TRUNCATED_MARKER,
  unionFiles,
} from "./session_summary.ts";

const NAMESPACE = "/actor/alice/project/abc123/";

function input(overrides: Partial<SessionSummaryInput> = {}): SessionSummaryInput {
  return {
    request: "Fix the flaky login test",
    investigated: "Read the auth middleware and the test fixtures.",
    learned: "The fixture clock was not frozen.",
    completed: "Froze the clock in the fixture.",
    next_steps: "Audit other fixtures for real clocks.",
    files_read: ["src/auth.ts", "test/login_test.ts"],
    files_modified: ["test/login_test.ts", "test/fixtures.ts"],
    ...overrides,
  };
}

Deno.test("formatSessionSummary writes the four sections in order", () => {
  const { summary } = formatSessionSummary(input());
  assert.equal(
    summary,
    [
      "## What was investigated",
      "",
      "Read the auth middleware and the test fixtures.",
      "",
      "## What was learned",
      "",
      "The fixture clock was not frozen.",
      "",
      "## What was completed",
      "",
      "Froze the clock in the fixture.",
      "",
      "## Next steps",
      "",
      "Audit other fixtures for real clocks.",
    ].join("\n"),
  );
});

Deno.test("an empty section keeps its heading without a body", () => {
  const { summary } = formatSessionSummary(input({ learned: "  ", next_steps: "" }));
  assert.ok(summary.includes("## What was learned\n\n## What was completed"));
  assert.ok(summary.endsWith("## Next steps"));
});

Deno.test("the title is the request on one line, cut to 200 characters", () => {
  assert.equal(sessionTitle("  Fix\n the   bug \t"), "Fix the bug");
  const long = "x".repeat(500);
  assert.equal(sessionTitle(long), "x".repeat(RECORD_LIMITS.title));
  assert.equal(sessionTitle("   "), "Session summary");
});

Deno.test("the title never ends in half a surrogate pair", () => {
  const title = sessionTitle("a".repeat(199) + "😀" + "tail");
  assert.equal(title, "a".repeat(199));
});

Deno.test("files are the deduplicated union, read first, first occurrence kept", () => {
  assert.deepEqual(formatSessionSummary(input()).files_touched, [
    "src/auth.ts",
    "test/login_test.ts",
    "test/fixtures.ts",
  ]);
  assert.deepEqual(unionFiles(["a", " a ", "", "b"], ["b", "c", "a"]), ["a", "b", "c"]);
});

Deno.test("files are capped to the record limit", () => {
  const many = Array.from({ length: 300 }, (_, i) => `f${i}.ts`);
  const files = unionFiles(many, many);
  assert.equal(files.length, RECORD_LIMITS.files);
  assert.equal(files[0], "f0.ts");
});

Deno.test("over 4000 characters, sections are dropped from the bottom and [truncated] appended", () => {
  const summary = formatSessionSummary(input({
    investigated: "i".repeat(1500),
    learned: "l".repeat(1500),
    completed: "c".repeat(1500),
    next_steps: "n".repeat(100),
  })).summary;
  assert.ok(summary.length <= RECORD_LIMITS.summary);
  assert.ok(summary.endsWith("\n\n" + SUMMARY_TRUNCATED_MARKER));
  assert.ok(summary.includes("## What was investigated"));
  assert.ok(summary.includes("## What was learned"));
  assert.ok(!summary.includes("## What was completed"), "completed dropped");
  assert.ok(!summary.includes("## Next steps"), "next steps dropped");
  assert.ok(summary.includes("l".repeat(1500)), "kept sections are whole");
});

Deno.test("exactly 4000 characters is kept as is", () => {
  const base = formatSessionSummary(input({ investigated: "" })).summary;
  const pad = RECORD_LIMITS.summary - base.length;
  const summary = formatSessionSummary(input({ investigated: "i".repeat(pad - 2) })).summary;
  assert.equal(summary.length, RECORD_LIMITS.summary);
  assert.ok(!summary.includes(SUMMARY_TRUNCATED_MARKER));
});

Deno.test("a first section alone over the limit is cut, not dropped", () => {
  const summary = formatSessionSummary(input({ investigated: "i".repeat(10_000) })).summary;
  assert.equal(summary.length, RECORD_LIMITS.summary);
  assert.ok(summary.startsWith("## What was investigated\n\niii"));
  assert.ok(summary.endsWith("i\n\n[truncated]"));
  assert.ok(!summary.includes("## What was learned"));
});

Deno.test("buildSessionSummaryRecord builds a valid mcp_session_summary record", () => {
  const now = new Date("2025-03-01T10:00:00.000Z");
  const record = buildSessionSummaryRecord(input(), { namespace: NAMESPACE, now });
  assert.deepEqual(MemoryRecordSchema.parse(record), record);
  assert.equal(record.strategy, "mcp_session_summary");
  assert.equal(record.observation_type, "session_summary");
  assert.equal(record.title, "Fix the flaky login test");
  assert.deepEqual(record.concepts, []);
  assert.deepEqual(record.facts, []);
  assert.equal(record.created_at, now.toISOString());
  assert.equal(record.source_event_ids.length, 1);
  assert.match(record.source_event_ids[0], ULID_PATTERN);
  assert.match(record.record_id, /^mr_/);
});

Deno.test("cutToLength counts UTF-16 units and keeps pairs whole", () => {
  assert.equal(cutToLength("abc", 5), "abc");
  assert.equal(cutToLength("abcdef", 3), "abc");
  assert.equal(cutToLength("ab😀", 3), "ab");
  assert.equal(cutToLength("ab😀", 4), "ab😀");
});

Deno.test("property: limits hold, sections stay in order, files are unique, record is valid", () => {
  const field = fc.oneof(
    fc.string({ maxLength: 50 }),
    fc.string({ unit: "grapheme", maxLength: 3000 }),
    fc.nat({ max: 6000 }).map((n) => "w ".repeat(n)),
  );
  const files = fc.array(fc.constantFrom("a.ts", "b.ts", " c.ts", "d/e.ts", ""), {
    maxLength: 30,
  });
  fc.assert(
    fc.property(
      fc.record({
        request: fc.string({ unit: "grapheme", minLength: 1, maxLength: 400 }),
        investigated: field,
        learned: field,
        completed: field,
        next_steps: field,
        files_read: files,
        files_modified: files,
      }),
      (sample) => {
        const record = buildSessionSummaryRecord(sample, { namespace: NAMESPACE });
        assert.ok(record.summary.length <= RECORD_LIMITS.summary);
        assert.ok(record.title.length >= 1 && record.title.length <= RECORD_LIMITS.title);

        const positions = SESSION_SUMMARY_HEADINGS.map((h) => record.summary.indexOf(h));
        const kept = positions.filter((p) => p >= 0).length;
        assert.ok(kept >= 1, "the first section always survives");
        // The kept headings are a prefix of the four, in order.
        assert.deepEqual(positions.slice(0, kept).every((p) => p >= 0), true);
        assert.deepEqual(positions.slice(kept).every((p) => p === -1), true);
        for (let i = 1; i < kept; i++) assert.ok(positions[i] > positions[i - 1]);
        if (kept < 4) assert.ok(record.summary.endsWith(SUMMARY_TRUNCATED_MARKER));

        assert.equal(new Set(record.files_touched).size, record.files_touched.length);
        const expected = new Set(
          [...sample.files_read, ...sample.files_modified].map((f) => f.trim()).filter(Boolean),
        );
        assert.deepEqual(new Set(record.files_touched), expected);

        assert.ok(MemoryRecordSchema.safeParse(record).success);
      },
    ),
    { numRuns: 300 },
  );
});
