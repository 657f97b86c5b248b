import assert from "node:assert/strict";
import { rolloutToolPayload, turnPayloads } from "./_codex_rollout.ts";
import { fixtureText } from "./testing.ts";

const SESSION = "01a22530-efd8-78c0-b93d-ca2583dd324e";
const TURN = "01a22530-f043-74a3-80f7-969cf3985fba";
const context = { sessionId: SESSION, cwd: "/p" };

Deno.test("turnPayloads: the real rollout's failing shell call, with its exit code, as a failure", () => {
  const lines = fixtureText("codex/rollout.jsonl", "/p").split("\n");
  const payloads = turnPayloads(lines, { ...context, turn: TURN });
  assert.equal(payloads.length, 1, "one tool call; the user and agent messages are not tools");
  const [only] = payloads;
  assert.equal(only.key, "item:call-1");
  assert.equal(only.time, 1795920296079, "when the command completed, not when the hook ran");
  assert.deepEqual(only.payload, {
    session_id: SESSION,
    cwd: "/p",
    hook_event_name: "PostToolUseFailure",
    tool_name: "Bash",
    tool_input: { command: "false" },
    tool_response: { exit_code: 1, output: "" },
    error: "exit code 1",
  });
  assert.deepEqual(turnPayloads(lines, { ...context, turn: "another-turn" }), []);
});

Deno.test("rolloutToolPayload: a command that exits 0 is a success; its script is the command", () => {
  const payload = rolloutToolPayload({
    type: "CommandExecution",
    id: "call-2",
    command: ["/bin/bash", "-lc", "echo hi && ls"],
    status: "completed",
    aggregated_output: "hi\n",
    exit_code: 0,
  }, context)!;
  assert.equal(payload.hook_event_name, "PostToolUse");
  assert.deepEqual(payload.tool_input, { command: "echo hi && ls" });
  assert.deepEqual(payload.tool_response, { exit_code: 0, output: "hi\n" });
  assert.equal(payload.error, undefined);
});

Deno.test("rolloutToolPayload: a failed command's output is its error; MCP and patches map too", () => {
  const failed = rolloutToolPayload({
    type: "CommandExecution",
    command: ["deno", "test"],
    status: "failed",
    aggregated_output: "error: 2 tests failed\n",
    exit_code: 1,
  }, context)!;
  assert.equal(failed.hook_event_name, "PostToolUseFailure");
  assert.deepEqual(failed.tool_input, { command: "deno test" });
  assert.equal(failed.error, "error: 2 tests failed\n");
  const mcp = rolloutToolPayload({
    type: "McpToolCall",
    server: "docs",
    tool: "search",
    arguments: { q: "x" },
    error: { message: "server gone" },
    status: "failed",
  }, context)!;
  assert.equal(mcp.tool_name, "mcp__docs__search");
  assert.equal(mcp.error, "server gone");
  const patch = rolloutToolPayload(
    { type: "FileChange", changes: [], status: "completed" },
    context,
  )!;
  assert.equal(patch.tool_name, "apply_patch");
  assert.equal(patch.hook_event_name, "PostToolUse");
  assert.equal(rolloutToolPayload({ type: "AgentMessage" }, context), null);
});

Deno.test("turnPayloads: lines that are not JSON, or lack an item id, are skipped", () => {
  const line = (item: Record<string, unknown>) =>
    JSON.stringify({ type: "event_msg", payload: { type: "item_completed", turn_id: TURN, item } });
  const payloads = turnPayloads([
    `{"item_completed" ${TURN} not json`,
    line({ type: "CommandExecution", command: ["true"], exit_code: 0 }),
    line({ type: "CommandExecution", id: "c3", command: ["true"], exit_code: 0 }),
  ], { ...context, turn: TURN });
  assert.deepEqual(payloads.map((p) => p.key), ["item:c3"]);
});
