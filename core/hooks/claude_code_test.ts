import assert from "node:assert/strict";
import type { EventBody } from "@kiro-learn/core/schemas";
import {
  CLAUDE_QUIET_START_SOURCES,
  CLAUDE_RETRIEVE_HOOKS,
  CLAUDE_STORE_HOOKS,
  claudeCodePlan,
} from "./claude_code.ts";

// Payloads recorded from the real Claude Code (the shims' test data).
const TESTDATA = new URL("../../shims/testdata/claude_code/", import.meta.url);
const SESSION = "3f2b8a6e-1c4d-4e9f-a7b2-5d6c8e0f1a23";

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(
    Deno.readTextFileSync(new URL(name, TESTDATA)).replaceAll("${PROJECT}", "/tmp/project"),
  );
}

// deno-lint-ignore no-explicit-any
function dataOf(body: EventBody): any {
  if (body.type !== "json") throw new Error(`expected a json body, got ${body.type}`);
  return body.data;
}

const opts = { fallbackSessionId: () => "fallback", fallbackCwd: () => "/fallback" };
const plan = (name: string) => claudeCodePlan(fixture(name), opts);

Deno.test("plan: every Claude Code hook maps to its event", () => {
  const start = plan("session_start.json")!;
  assert.equal(start.surface, "claude-code");
  assert.equal(start.sessionId, SESSION);
  // At startup the hook only stores; the first prompt asks for the session-start block.
  assert.deepEqual(start.events.map((e) => [e.kind, e.query, e.print]), [["note", "", false]]);
  assert.equal(start.timeout, "store");
  for (const source of ["resume", "clear", "compact"]) {
    const later = claudeCodePlan({ ...fixture("session_start.json"), source }, opts)!;
    assert.deepEqual(later.events.map((e) => [e.kind, e.query, e.print]), [[
      "note",
      "resume",
      true,
    ]]);
    assert.equal(later.timeout, "retrieve");
  }
  assert.deepEqual(plan("user_prompt_submit.json")!.events.map((e) => [e.kind, e.query]), [[
    "prompt",
    "retrieve-start",
  ]]);
  const read = dataOf(plan("post_tool_use_read.json")!.events[0].body);
  assert.equal(read.tool_name, "Read");
  assert.equal(read.failed, undefined);
  const bash = dataOf(plan("post_tool_use_bash.json")!.events[0].body);
  assert.equal(bash.failed, undefined);
  const failure = dataOf(plan("post_tool_use_failure.json")!.events[0].body);
  assert.equal(failure.failed, true);
  assert.equal(failure.error, "error: RangeError: bad day: 29");
  assert.match(failure.tool_response.error, /^Exit code 1/);
  const stop = plan("stop.json")!;
  assert.equal(stop.events[0].kind, "session_summary");
  assert.match((stop.events[0].body as { content: string }).content, /leap years/);
  // The transcript travels with the turn's end only: the shim reads the turn's tool uses there.
  assert.match(stop.transcript ?? "", /\.jsonl$/);
  assert.equal(plan("user_prompt_submit.json")!.transcript, undefined);
  const blank = claudeCodePlan({ ...fixture("stop.json"), transcript_path: "  " }, opts)!;
  assert.equal(blank.transcript, undefined);
  const end = plan("session_end.json")!;
  assert.equal(end.timeout, "fast");
  assert.deepEqual(end.events[0].body, {
    type: "text",
    content: "session ended (prompt_input_exit)",
  });
  assert.equal(end.events[0].query, "");
  assert.equal(plan("post_tool_use_own_tool.json"), null);
  assert.equal(plan("unknown_hook.json"), null);
  assert.equal(plan("notification.json"), null);
});

Deno.test("plan: the payload's cwd, else the fallback; the reasons for nothing go to warn", () => {
  const warned: string[] = [];
  const options = { ...opts, warn: (m: string) => warned.push(m) };
  const noCwd = claudeCodePlan({ hook_event_name: "Stop", session_id: "s" }, options)!;
  assert.equal(noCwd.cwd, "/fallback");
  const noSession = claudeCodePlan({ hook_event_name: "Stop", cwd: " /x " }, options)!;
  assert.equal(noSession.sessionId, "fallback");
  assert.equal(noSession.cwd, "/x");
  assert.equal(claudeCodePlan({ session_id: "s" }, options), null);
  assert.equal(claudeCodePlan({ hook_event_name: "TimeTravel" }, options), null);
  assert.equal(claudeCodePlan({ hook_event_name: "PreToolUse" }, options), null);
  assert.equal(warned.length, 2);
  assert.match(warned[0], /no hook_event_name/);
  assert.match(warned[1], /unknown hook "TimeTravel"/);
});

Deno.test("plan: the hooks the launcher runs in the background print nothing, the others print", () => {
  // The launcher detaches a store hook's delivery: whatever its plan printed would be lost.
  const fixtures: Record<string, string> = {
    SessionStart: "session_start.json",
    UserPromptSubmit: "user_prompt_submit.json",
    PostToolUse: "post_tool_use_bash.json",
    PostToolUseFailure: "post_tool_use_failure.json",
    Stop: "stop.json",
    SessionEnd: "session_end.json",
  };
  assert.deepEqual(
    [...CLAUDE_RETRIEVE_HOOKS, ...CLAUDE_STORE_HOOKS].sort(),
    Object.keys(fixtures).sort(),
    "every hook we plan is either retrieved (waited for) or stored (run in the background)",
  );
  for (const hook of CLAUDE_STORE_HOOKS) {
    const events = plan(fixtures[hook])!.events;
    assert.ok(events.length > 0, hook);
    assert.ok(events.every((e) => !e.print && e.query === ""), `${hook} must print nothing`);
  }
  // SessionStart only at the sources where the launcher waits for it.
  for (const source of CLAUDE_QUIET_START_SOURCES) {
    const events = claudeCodePlan({ ...fixture("session_start.json"), source }, opts)!.events;
    assert.ok(events.every((e) => !e.print && e.query === ""), `${source} must print nothing`);
  }
  const printing = { ...fixture("session_start.json"), source: "clear" };
  assert.ok(claudeCodePlan(printing, opts)!.events.some((e) => e.print), "clear prints");
  assert.ok(plan(fixtures.UserPromptSubmit)!.events.some((e) => e.print), "prompts print");
});
