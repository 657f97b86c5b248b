import assert from "node:assert/strict";
import { chatMessages, lastTurnPayloads } from "./_gemini_transcript.ts";
import { fixtureText } from "./testing.ts";

const context = { sessionId: "825e0459-10db-4700-92ac-5e950123b5cd", cwd: "/srv/app" };

Deno.test("the real chat file's turn: the failing shell call, flagged; kiro-learn's own tool left out", () => {
  const lines = fixtureText("gemini_cli/chat.jsonl", "/srv/app").split("\n");
  const payloads = lastTurnPayloads(lines, context);
  assert.equal(payloads.length, 1, JSON.stringify(payloads));
  const [{ payload, key, time }] = payloads;
  assert.equal(payload.hook_event_name, "PostToolUseFailure");
  assert.equal(payload.tool_name, "run_shell_command");
  assert.deepEqual(payload.tool_input, { command: "false" });
  assert.equal(payload.error, "exit code 1");
  assert.equal(key, "tool:run_shell_command__run_shell_command_1795927777143_0");
  // When the call completed, by the call's own record.
  assert.equal(time, Date.parse("2026-11-29T04:49:37.773Z"));
});

Deno.test("only the last turn: a later prompt starts a new one, tool results are not prompts", () => {
  const lines = fixtureText("gemini_cli/chat.jsonl", "/srv/app").split("\n");
  const next = JSON.stringify({
    id: "next-prompt",
    timestamp: "2026-11-29T04:50:00.000Z",
    type: "user",
    content: [{ text: "and now?" }],
  });
  assert.deepEqual(lastTurnPayloads([...lines, next], context), []);
  const call = {
    id: "c-2",
    name: "read_file",
    args: { file_path: "a.ts" },
    status: "error",
    result: [{ functionResponse: { id: "c-2", name: "read_file", response: { error: "ENOENT" } } }],
  };
  const answer = JSON.stringify({ id: "g-2", type: "gemini", content: "", toolCalls: [call] });
  const [read] = lastTurnPayloads([...lines, next, answer], context);
  assert.equal(read.payload.tool_name, "read_file");
  assert.equal(read.payload.error, "ENOENT");
});

Deno.test("chatMessages replays the log: later versions win, rewinds and rewrites apply", () => {
  const m = (id: string, text: string) => JSON.stringify({ id, type: "user", content: text });
  const ids = (lines: string[]) => chatMessages(lines).map((x) => `${x.id}:${x.content}`);
  assert.deepEqual(ids([m("a", "1"), m("b", "2"), m("a", "3")]), ["a:3", "b:2"]);
  assert.deepEqual(ids([m("a", "1"), m("b", "2"), '{"$rewindTo":"b"}', m("c", "4")]), [
    "a:1",
    "c:4",
  ]);
  const rewrite = JSON.stringify({ $set: { messages: [{ id: "z", type: "user", content: "9" }] } });
  assert.deepEqual(ids([m("a", "1"), rewrite, "not json", '{"$set":{"lastUpdated":"x"}}']), [
    "z:9",
  ]);
});
