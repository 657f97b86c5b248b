import assert from "node:assert/strict";
import { HOOK_AGENTS } from "./agents.ts";

const fallbacks = { fallbackSessionId: () => "s-1", fallbackCwd: () => "/srv/app" };

/** One payload for every agent's hooks: Copilot CLI's event comes from its hook command. */
function payload(hook: string): Record<string, unknown> {
  return {
    hook_event_name: hook,
    session_id: "3f2b8a6e-1c4d-4e9f-a7b2-5d6c8e0f1a23",
    sessionId: "3f2b8a6e-1c4d-4e9f-a7b2-5d6c8e0f1a23",
    toolName: "bash",
    toolArgs: { command: "false" },
    timestamp: 1,
    transcriptPath: "/srv/app/events.jsonl",
    cwd: "/srv/app",
    prompt: "why?",
    source: "resume",
    tool_name: "Bash",
    tool_input: { command: "false" },
    tool_response: { llmContent: "Exit Code: 1" },
    last_assistant_message: "Done.",
    prompt_response: "Done.",
  };
}

Deno.test("each agent's hook classes agree with its plan: the launcher waits exactly where it prints", () => {
  for (const [surface, agent] of Object.entries(HOOK_AGENTS)) {
    const options = (hook: string) => ({ ...fallbacks, event: hook });
    for (const hook of agent.retrieve) {
      const plan = agent.plan(payload(hook), options(hook));
      assert.ok(plan?.events.some((e) => e.print), `${surface} ${hook} prints its retrieval`);
    }
    // A hook the launcher skips records nothing, or only a tool use the turn's end reads from
    // the agent's own files (an older install's tool hooks still run the shim).
    for (const hook of agent.ignored) {
      const plan = agent.plan(payload(hook), options(hook));
      const toolOnly = agent.turnEnd !== undefined &&
        plan?.events.every((e) => e.kind === "tool_use");
      assert.ok(plan === null || toolOnly, `${surface} ${hook} records nothing`);
    }
    for (const hook of [...agent.store, ...(agent.turnEnd ? [agent.turnEnd] : [])]) {
      if (agent.ignored.includes(hook)) continue;
      const plan = agent.plan(payload(hook), options(hook));
      assert.ok(plan !== null, `${surface} ${hook} records`);
      assert.ok(plan.events.every((e) => !e.print), `${surface} ${hook} prints nothing`);
    }
    // What the hook prints when it has nothing to say is what its output gives for no context.
    assert.equal(agent.output(null, ""), agent.silent, surface);
  }
});
