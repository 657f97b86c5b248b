import assert from "node:assert/strict";
import { geminiCliPlan, geminiHookOutput, geminiToolError } from "./gemini_cli.ts";

const BASE = {
  session_id: "825e0459-10db-4700-92ac-5e950123b5cd",
  transcript_path: "/home/dev/.gemini/tmp/app/chats/session.jsonl",
  cwd: "/home/dev/app",
  timestamp: "2026-11-29T02:40:34.019Z",
};
const OPTIONS = { fallbackSessionId: () => "fallback", fallbackCwd: () => "/fallback" };

function plan(payload: Record<string, unknown>, warn?: (m: string) => void) {
  return geminiCliPlan({ ...BASE, ...payload }, { ...OPTIONS, warn });
}

Deno.test("BeforeAgent: the prompt, retrieving the start block with it, printed", () => {
  const p = plan({ hook_event_name: "BeforeAgent", prompt: "why does parseDate fail?" })!;
  assert.equal(p.surface, "gemini-cli");
  assert.equal(p.sessionId, BASE.session_id);
  assert.equal(p.cwd, BASE.cwd);
  assert.equal(p.timeout, "retrieve");
  assert.deepEqual(p.events, [{
    kind: "prompt",
    body: { type: "text", content: "why does parseDate fail?" },
    query: "retrieve-start",
    print: true,
  }]);
});

Deno.test("BeforeAgent: context another hook added at the start is not the user's prompt", () => {
  const p = plan({
    hook_event_name: "BeforeAgent",
    prompt: "<hook_context>git log: 3 commits</hook_context>\n\nRun the check",
  })!;
  assert.deepEqual(p.events[0].body, { type: "text", content: "Run the check" });
  assert.equal(plan({ hook_event_name: "BeforeAgent", prompt: "  " }), null);
  assert.equal(plan({ hook_event_name: "BeforeAgent" }), null);
});

Deno.test("AfterTool: a shell command exiting non-zero is a failed tool use (Gemini sets no error)", () => {
  const p = plan({
    hook_event_name: "AfterTool",
    tool_name: "run_shell_command",
    tool_input: { command: "false" },
    tool_response: {
      llmContent:
        "<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 20957\n</untrusted_context>",
      returnDisplay: "Command exited with code: 1",
    },
  })!;
  assert.equal(p.timeout, "store");
  const [event] = p.events;
  assert.equal(event.kind, "tool_use");
  assert.equal(event.print, false);
  const data = (event.body as { data: Record<string, unknown> }).data;
  assert.equal(data.tool_name, "run_shell_command");
  assert.deepEqual(data.tool_input, { command: "false" });
  assert.equal(data.failed, true);
  assert.equal(data.error, "exit code 1");
});

Deno.test("geminiToolError: the error's message, the output's telling line, or nothing", () => {
  assert.equal(
    geminiToolError({ llmContent: "x", error: { message: "File not found: a.txt", type: "t" } }),
    "File not found: a.txt",
  );
  assert.equal(geminiToolError({ error: { type: "invalid_tool_params" } }), "invalid_tool_params");
  assert.equal(
    geminiToolError({
      llmContent: [{ text: "Output: error: test parseDate failed\nExit Code: 2\n" }],
    }),
    "error: test parseDate failed",
  );
  assert.equal(geminiToolError({ llmContent: "Output: ok\nExit Code: 0" }), undefined);
  assert.equal(geminiToolError({ llmContent: "Output: ok", returnDisplay: "ok" }), undefined);
  assert.equal(geminiToolError("plain"), undefined);
  const ok = plan({
    hook_event_name: "AfterTool",
    tool_name: "read_file",
    tool_input: { file_path: "a.txt" },
    tool_response: { llmContent: "hello", returnDisplay: "" },
  })!;
  assert.equal((ok.events[0].body as { data: Record<string, unknown> }).data.failed, undefined);
});

Deno.test("AfterTool: the memory system's own MCP tools are not recorded", () => {
  assert.equal(
    plan({ hook_event_name: "AfterTool", tool_name: "mcp_kiro-learn-memory_search" }),
    null,
  );
});

Deno.test("AfterAgent: the turn's answer as its summary; SessionEnd a fast note", () => {
  const end = plan({ hook_event_name: "AfterAgent", prompt: "p", prompt_response: "Done." })!;
  assert.deepEqual(end.events.map((e) => [e.kind, e.body]), [[
    "session_summary",
    { type: "text", content: "Done." },
  ]]);
  assert.equal(end.timeout, "store");
  const bye = plan({ hook_event_name: "SessionEnd", reason: "exit" })!;
  assert.deepEqual(bye.events[0].body, { type: "text", content: "session ended (exit)" });
  assert.equal(bye.timeout, "fast");
});

Deno.test("SessionStart: stored quietly at startup, the resume block after a resume or clear", () => {
  const quiet = plan({ hook_event_name: "SessionStart", source: "startup" })!;
  assert.deepEqual([quiet.events[0].query, quiet.events[0].print, quiet.timeout], [
    "",
    false,
    "store",
  ]);
  const resumed = plan({ hook_event_name: "SessionStart", source: "resume" })!;
  assert.deepEqual([resumed.events[0].query, resumed.events[0].print], ["resume", true]);
});

Deno.test("payloads without a name, or of events memory ignores, plan nothing", () => {
  const warnings: string[] = [];
  assert.equal(plan({ hook_event_name: "" }, (m) => warnings.push(m)), null);
  assert.equal(plan({ hook_event_name: "BeforeModel" }, (m) => warnings.push(m)), null);
  assert.equal(plan({ hook_event_name: "TimeTravel" }, (m) => warnings.push(m)), null);
  assert.equal(warnings.length, 2);
  assert.match(warnings[1], /unknown hook "TimeTravel"/);
  const bare = geminiCliPlan({ hook_event_name: "AfterAgent" }, OPTIONS)!;
  assert.deepEqual([bare.sessionId, bare.cwd], ["fallback", "/fallback"]);
});

Deno.test("geminiHookOutput: always one JSON object; context only for the events that add it", () => {
  assert.equal(geminiHookOutput(null, ""), "{}\n");
  assert.equal(geminiHookOutput("AfterTool", "ignored context"), "{}\n");
  assert.equal(geminiHookOutput("BeforeAgent", "  \n"), "{}\n");
  assert.deepEqual(JSON.parse(geminiHookOutput("BeforeAgent", "## Memory\n<x>\n")), {
    hookSpecificOutput: { hookEventName: "BeforeAgent", additionalContext: "## Memory\n<x>" },
  });
});
