/**
 * The agents kiro-learn installs must speak exactly the grammar `core/xml` parses and expect
 * exactly the framing it sends. `agents/` may import nothing, so the contract is pinned here.
 */
import assert from "node:assert/strict";
import {
  COMPACTOR_AGENT,
  COMPACTOR_EXAMPLE_OUTPUT,
  COMPRESSOR_AGENT,
  COMPRESSOR_EXAMPLE_INPUT,
  COMPRESSOR_EXAMPLE_OUTPUT,
  COMPRESSOR_EXAMPLE_SKIP,
  OBSERVATION_KINDS,
  OBSERVATION_TYPES,
  RECONCILER_AGENT,
  RECONCILER_EXAMPLE_INPUT,
  RECONCILER_EXAMPLE_KEEP,
  RECONCILER_EXAMPLE_MERGE,
  SUMMARY_MAX_CHARS,
  TITLE_MAX_CHARS,
} from "@kiro-learn/agents";
import {
  EVENT_KINDS,
  OBSERVATION_TYPES as CORE_TYPES,
  type QueueEntry,
  RECORD_LIMITS,
} from "@kiro-learn/core/schemas";
import {
  frameCompactionRequest,
  frameEntry,
  frameJudgeRequest,
  parseCompactedEntries,
  parseJudgeResponse,
  parseMemoryRecords,
} from "@kiro-learn/core/xml";

const ENTRY: QueueEntry = {
  seq: 1,
  project_id: "p",
  namespace: "/actor/me/project/p/",
  kind: "tool_use",
  body: {
    type: "json",
    data: {
      tool_name: "execute_bash",
      tool_input: { command: "deno test" },
      tool_response: { success: false, result: ["boom"] },
    },
  },
  timestamp: "2025-06-02T09:15:40Z",
  surface: "kiro-cli",
  source_event_ids: ["01JX0000000000000000000001"],
  compacted: false,
  bytes: 10,
};

function tagsOf(xml: string): Set<string> {
  return new Set([...xml.matchAll(/<([a-z_]+)[\s>/]/g)].map((m) => m[1]));
}

Deno.test("the agents' domain words match core's", () => {
  assert.deepEqual([...OBSERVATION_TYPES], [...CORE_TYPES]);
  assert.deepEqual([...OBSERVATION_KINDS].sort(), [...EVENT_KINDS].sort());
  assert.equal(TITLE_MAX_CHARS, RECORD_LIMITS.title);
  assert.equal(SUMMARY_MAX_CHARS, RECORD_LIMITS.summary);
});

Deno.test("every tag core frames is described in the prompts that receive it", () => {
  for (const tag of tagsOf(frameEntry(ENTRY))) {
    assert.ok(COMPRESSOR_AGENT.prompt.includes(`<${tag}`), `compressor: <${tag}>`);
    assert.ok(COMPACTOR_AGENT.prompt.includes(`<${tag}`), `compactor: <${tag}>`);
  }
  for (const tag of tagsOf(frameCompactionRequest([ENTRY]))) {
    assert.ok(COMPACTOR_AGENT.prompt.includes(`<${tag}`), `compactor: <${tag}>`);
  }
  const judge = frameJudgeRequest({
    candidates: [{
      record_id: "mr_1",
      title: "t",
      summary: "s",
      facts: ["f"],
      concepts: ["c"],
      files_touched: ["a.ts"],
      observation_type: "discovery",
    }],
    neighbors: [{ record_id: "mr_2", title: "t", summary: "s", facts: ["f"], similarity: 0.9 }],
  });
  for (const tag of tagsOf(judge)) {
    assert.ok(RECONCILER_AGENT.prompt.includes(`<${tag}`), `reconciler: <${tag}>`);
  }
});

Deno.test("the prompts' example inputs use core's framing", () => {
  assert.deepEqual(tagsOf(COMPRESSOR_EXAMPLE_INPUT), tagsOf(frameEntry(ENTRY)));
  const judgeTags = tagsOf(RECONCILER_EXAMPLE_INPUT);
  for (const tag of ["reconciliation_request", "candidate", "neighbor", "facts", "fact"]) {
    assert.ok(judgeTags.has(tag), tag);
  }
});

Deno.test("the compressor's example answers parse as records and as a skip", () => {
  const parsed = parseMemoryRecords(COMPRESSOR_EXAMPLE_OUTPUT);
  assert.equal(parsed.kind, "records");
  if (parsed.kind !== "records") return;
  assert.equal(parsed.records.length, 1);
  const [record] = parsed.records;
  assert.equal(record.observation_type, "error");
  assert.equal(record.facts.length, 2);
  assert.match(record.facts[0], /"Leaking async ops"/);
  assert.deepEqual(record.concepts, ["testing", "ci", "timers"]);
  assert.deepEqual(record.files_touched, ["server_test.ts"]);
  assert.deepEqual(parseMemoryRecords(COMPRESSOR_EXAMPLE_SKIP), { kind: "skip" });
});

Deno.test("the reconciler's example answers parse as a merge and as keep-separate", () => {
  const merge = parseJudgeResponse(RECONCILER_EXAMPLE_MERGE);
  assert.equal(merge.kind, "merge");
  if (merge.kind !== "merge") return;
  assert.deepEqual(merge.merged_ids, [
    "mr_01JX0000000000000000000001",
    "mr_01JW0000000000000000000009",
  ]);
  assert.equal(merge.record.observation_type, "discovery");
  assert.equal(merge.record.facts.length, 2);
  assert.deepEqual(parseJudgeResponse(RECONCILER_EXAMPLE_KEEP), { kind: "keep_separate" });
});

Deno.test("the compactor's example answer parses into entries", () => {
  const entries = parseCompactedEntries(COMPACTOR_EXAMPLE_OUTPUT);
  assert.equal(entries?.length, 2);
  assert.match(entries![0], /"Leaking async ops"/);
});
