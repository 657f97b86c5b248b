import assert from "node:assert/strict";
import {
  copilotCliPlan,
  copilotHookOutput,
  copilotToolError,
  copilotTurnAnswer,
} from "./copilot_cli.ts";

const BASE = {
  sessionId: "3474568a-3e76-4627-8796-504897f5662c",
  timestamp: 1795927245851,
  cwd: "/home/dev/app",
};
const OPTIONS = { fallbackSessionId: () => "fallback", fallbackCwd: () => "/fallback" };

function plan(
  event: string | undefined,
  payload: Record<string, unknown>,
  warn?: (m: string) => void,
) {
  return copilotCliPlan({ ...BASE, ...payload }, { ...OPTIONS, event, warn });
}

Deno.test("userPromptSubmitted: the prompt, retrieving the start block with it, printed", () => {
  const p = plan("userPromptSubmitted", { prompt: "why does parseDate fail?" })!;
  assert.equal(p.surface, "copilot-cli");
  assert.equal(p.hook, "userPromptSubmitted");
  assert.equal(p.sessionId, BASE.sessionId);
  assert.equal(p.cwd, BASE.cwd);
  assert.equal(p.timeout, "retrieve");
  assert.deepEqual(p.events, [{
    kind: "prompt",
    body: { type: "text", content: "why does parseDate fail?" },
    query: "retrieve-start",
    print: true,
  }]);
  assert.equal(plan("userPromptSubmitted", { prompt: "  " }), null);
});

Deno.test("postToolUse: a shell command exiting non-zero is a failed tool use (resultType says success)", () => {
  const p = plan("postToolUse", {
    toolName: "bash",
    toolArgs: { command: "ls /nope", description: "list" },
    toolResult: {
      resultType: "success",
      textResultForLlm:
        "ls: cannot access '/nope': No such file or directory\n<shellId: 0 completed with exit code 2>",
    },
  })!;
  assert.equal(p.timeout, "store");
  const data = (p.events[0].body as { data: Record<string, unknown> }).data;
  assert.equal(p.events[0].kind, "tool_use");
  assert.equal(data.tool_name, "bash");
  assert.deepEqual(data.tool_input, { command: "ls /nope", description: "list" });
  assert.equal(data.failed, true);
  assert.equal(data.error, "ls: cannot access '/nope': No such file or directory");
});

Deno.test("postToolUse: exit code 0, or a file that merely mentions an exit code, is no failure", () => {
  const ok = plan("postToolUse", {
    toolName: "bash",
    toolArgs: { command: "echo ok" },
    toolResult: {
      resultType: "success",
      textResultForLlm: "ok\n<shellId: 1 completed with exit code 0>",
    },
  })!;
  assert.equal((ok.events[0].body as { data: Record<string, unknown> }).data.failed, undefined);
  assert.equal(
    copilotToolError({
      resultType: "success",
      textResultForLlm: "1. the runner prints exit code 1",
    }),
    undefined,
  );
  assert.equal(copilotToolError({ resultType: "denied", textResultForLlm: "" }), "tool denied");
  assert.equal(copilotToolError(null), undefined);
});

Deno.test("postToolUseFailure: the tool's error is kept", () => {
  const p = plan("postToolUseFailure", {
    toolName: "view",
    toolArgs: { path: "/home/dev/app/missing.txt" },
    error: "Path does not exist",
  })!;
  const data = (p.events[0].body as { data: Record<string, unknown> }).data;
  assert.equal(data.failed, true);
  assert.equal(data.error, "Path does not exist");
});

Deno.test("the memory system's own MCP tools are not recorded", () => {
  assert.equal(plan("postToolUse", { toolName: "kiro-learn-memory-search", toolArgs: {} }), null);
});

Deno.test("agentStop: the turn's end, naming the transcript the answer is read from", () => {
  const p = plan("agentStop", {
    transcriptPath: "/home/dev/.copilot/session-state/s/events.jsonl",
    stopReason: "end_turn",
  })!;
  assert.equal(p.events[0].kind, "session_summary");
  assert.equal(p.transcript, "/home/dev/.copilot/session-state/s/events.jsonl");
  assert.equal(p.events[0].print, false);
});

Deno.test("sessionStart: quiet on a new session, the resume block on a resume; sessionEnd is fast", () => {
  const fresh = plan("sessionStart", { source: "new" })!;
  assert.equal(fresh.events[0].print, false);
  assert.equal(fresh.timeout, "store");
  const resumed = plan("sessionStart", { source: "resume" })!;
  assert.equal(resumed.events[0].query, "resume");
  assert.equal(resumed.events[0].print, true);
  const end = plan("sessionEnd", { reason: "complete" })!;
  assert.equal(end.timeout, "fast");
  assert.deepEqual(end.events[0].body, { type: "text", content: "session ended (complete)" });
});

Deno.test("no event named, an unknown or an ignored one: nothing, with a warning where it helps", () => {
  const warnings: string[] = [];
  assert.equal(plan(undefined, { prompt: "x" }, (m) => warnings.push(m)), null);
  assert.equal(plan("bogus", {}, (m) => warnings.push(m)), null);
  assert.equal(plan("preToolUse", { toolName: "bash" }, (m) => warnings.push(m)), null);
  assert.equal(warnings.length, 2);
  assert.match(warnings[1], /unknown hook "bogus"/);
});

Deno.test("a payload without session or cwd gets the fallbacks", () => {
  const p = copilotCliPlan({ prompt: "hi" }, { ...OPTIONS, event: "userPromptSubmitted" })!;
  assert.equal(p.sessionId, "fallback");
  assert.equal(p.cwd, "/fallback");
});

Deno.test("copilotTurnAnswer: this turn's final answer, written before or after its agentStop hook started", () => {
  const stop = (timestamp: number) =>
    JSON.stringify({ type: "hook.start", data: { hookType: "agentStop", input: { timestamp } } });
  const said = (content: string) =>
    JSON.stringify({ type: "assistant.message", data: { content, toolRequests: [] } });
  const prompt = JSON.stringify({ type: "user.message", data: { content: "next" } });
  const toolCall = JSON.stringify({
    type: "assistant.message",
    data: { content: "Next step.", toolRequests: [{ name: "bash" }] },
  });
  const lines = [
    '"data":{"content":"cut first line of a tail"}}',
    said("first turn's answer"),
    stop(1000),
    toolCall,
    said("the answer"),
    JSON.stringify({ type: "assistant.turn_end", data: {} }),
    stop(2000),
    prompt,
    said("a later turn"),
  ];
  assert.deepEqual(copilotTurnAnswer(lines.join("\n"), 2000), {
    answer: "the answer",
    complete: true,
  });
  // The hook's start written, the final answer not yet: the text so far, not complete.
  const early = [...lines.slice(0, 4), stop(2000)];
  assert.deepEqual(copilotTurnAnswer(early.join("\n"), 2000), {
    answer: "Next step.",
    complete: false,
  });
  // The final answer written after the hook's start.
  assert.deepEqual(copilotTurnAnswer([...early, said("late")].join("\n"), 2000), {
    answer: "late",
    complete: true,
  });
  // Nothing of the hook yet: the last answer there is, not complete.
  assert.deepEqual(copilotTurnAnswer(lines.slice(0, 5).join("\n"), 2000), {
    answer: "the answer",
    complete: false,
  });
  assert.deepEqual(copilotTurnAnswer("", undefined), { answer: "", complete: false });
});

Deno.test("output: additionalContext for the prompt, {} for everything else", () => {
  assert.deepEqual(JSON.parse(copilotHookOutput("userPromptSubmitted", " memory ")), {
    additionalContext: "memory",
  });
  assert.equal(copilotHookOutput("userPromptSubmitted", "  "), "{}\n");
  assert.equal(copilotHookOutput("postToolUse", "memory"), "{}\n");
  assert.equal(copilotHookOutput(null, "memory"), "{}\n");
});
