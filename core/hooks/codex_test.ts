import assert from "node:assert/strict";
import { codexHookOutput, codexPlan } from "./codex.ts";

const SESSION = "01a22530-efd8-78c0-b93d-ca2583dd324e";
const TURN = "01a22530-f043-74a3-80f7-969cf3985fba";
const base = {
  session_id: SESSION,
  turn_id: TURN,
  transcript_path: "/h/.codex/sessions/rollout.jsonl",
  cwd: "/p",
  model: "scripted",
  permission_mode: "bypassPermissions",
};
const options = { fallbackSessionId: () => "fallback", fallbackCwd: () => "/fallback" };

Deno.test("codexPlan: a prompt is filed under codex and retrieves with the session-start block", () => {
  const plan = codexPlan(
    { ...base, hook_event_name: "UserPromptSubmit", prompt: "why?" },
    options,
  )!;
  assert.equal(plan.surface, "codex");
  assert.equal(plan.sessionId, SESSION);
  assert.equal(plan.cwd, "/p");
  assert.equal(plan.timeout, "retrieve");
  assert.deepEqual(plan.events, [{
    kind: "prompt",
    body: { type: "text", content: "why?" },
    query: "retrieve-start",
    print: true,
  }]);
  assert.equal(plan.turn, undefined, "only a turn's end reads the turn's tool uses");
});

Deno.test("codexPlan: a turn's end stores the answer and names its rollout and turn", () => {
  const plan = codexPlan({
    ...base,
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: "The check failed.",
  }, options)!;
  assert.equal(plan.surface, "codex");
  assert.equal(plan.timeout, "store");
  assert.deepEqual(plan.events.map((e) => [e.kind, e.body]), [[
    "session_summary",
    { type: "text", content: "The check failed." },
  ]]);
  assert.equal(plan.transcript, base.transcript_path);
  assert.equal(plan.turn, TURN);
});

Deno.test("codexPlan: tool hooks record nothing (the turn's end reads them), unknown hooks warn", () => {
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  for (const hook of ["PreToolUse", "PostToolUse", "PermissionRequest", "SubagentStop"]) {
    assert.equal(
      codexPlan({ ...base, hook_event_name: hook, tool_name: "Bash", tool_response: "" }, {
        ...options,
        warn,
      }),
      null,
      hook,
    );
  }
  assert.deepEqual(warnings, []);
  assert.equal(codexPlan({ ...base, hook_event_name: "TimeTravel" }, { ...options, warn }), null);
  assert.deepEqual(warnings, ['codex hook: unknown hook "TimeTravel"; nothing recorded']);
});

Deno.test("codexPlan: a payload without session or cwd takes the fallbacks; without a hook, nothing", () => {
  const plan = codexPlan({ hook_event_name: "UserPromptSubmit", prompt: "hi" }, options)!;
  assert.equal(plan.sessionId, "fallback");
  assert.equal(plan.cwd, "/fallback");
  assert.equal(codexPlan({ prompt: "hi" }, options), null);
  assert.equal(codexPlan({ hook_event_name: "UserPromptSubmit", prompt: "  " }, options), null);
});

Deno.test("codexHookOutput: plain context as is; one Codex would read as JSON gets a line ahead", () => {
  assert.equal(codexHookOutput("UserPromptSubmit", "## Memory\n- x\n"), "## Memory\n- x\n");
  assert.equal(codexHookOutput("UserPromptSubmit", ""), "");
  for (const context of ["[kiro-learn] no project memory this session\n", ' {"a":1}\n']) {
    const printed = codexHookOutput("UserPromptSubmit", context);
    assert.doesNotMatch(printed, /^\s*[[{]/);
    assert.ok(printed.endsWith(context));
  }
});
