import assert from "node:assert/strict";
import { resolveProject } from "@kiro-learn/core/project";
import { makeRecord } from "@kiro-learn/core/testing";
import { postJson, startTestDaemon } from "@kiro-learn/collector/testing";
import { kiroIdePlan, promptText } from "./kiro_ide.ts";
import {
  dataOf,
  fixture,
  makeProject,
  runShimProcess,
  storedEvents,
  TEST_ACTOR,
} from "./testing.ts";

interface IdeFixture {
  args: string[];
  USER_PROMPT: string;
}

function planOf(name: string) {
  const f = fixture<IdeFixture>(`kiro_ide0/${name}`);
  return kiroIdePlan(f.args, {
    env: { USER_PROMPT: f.USER_PROMPT },
    sessionId: () => "ide-session",
    cwd: () => "/work/app",
  });
}

Deno.test("plan: promptSubmit is a prompt with retrieval", () => {
  const plan = planOf("prompt_submit.json")!;
  assert.equal(plan.surface, "kiro-ide");
  assert.equal(plan.cwd, "/work/app");
  assert.deepEqual(plan.events.map((e) => [e.kind, e.query, e.print]), [[
    "prompt",
    "retrieve",
    true,
  ]]);
});

Deno.test("plan: a JSON prompt payload (IDE 0.12) is stored as its prompt, not as JSON text", () => {
  const plan = kiroIdePlan(["promptSubmit"], {
    env: { USER_PROMPT: '{"prompt":"why is the cart total off by a cent?","mode":"vibe"}' },
    sessionId: () => "ide-session",
    cwd: () => "/work/app",
  })!;
  assert.deepEqual(plan.events[0].body, {
    type: "text",
    content: "why is the cart total off by a cent?",
  });
  assert.equal(promptText('{"userPrompt":"fix the test"}'), "fix the test");
  // Text that only looks like JSON is what the user typed, and stays as it came.
  assert.equal(promptText("{ not json at all"), "{ not json at all");
  assert.equal(promptText('{"a": 1}'), '{"a": 1}');
  assert.equal(promptText("plain words"), "plain words");
});

Deno.test("plan: postToolUse maps camelCase and detects the prose exit code", () => {
  const plan = planOf("post_tool_use_failed.json")!;
  const data = dataOf(plan.events[0].body);
  assert.equal(data.tool_name, "executeBash");
  assert.deepEqual(data.tool_input, {});
  assert.equal(data.tool_response.success, true);
  assert.match(data.tool_response.result, /Exit Code: 1/);
  assert.equal(data.failed, true);
  assert.equal(data.error, "error: RangeError: bad day: 29");
  const edit = dataOf(planOf("post_tool_use_edit.json")!.events[0].body);
  assert.equal(edit.failed, undefined);
  const prose = dataOf(planOf("post_tool_use_prose.json")!.events[0].body);
  assert.equal(prose.tool_name, "unknown");
  assert.deepEqual(prose.tool_response, { result: "Replaced text in src/date_parser.ts" });
});

Deno.test("plan: empty agentStop, file events and missing arguments record nothing", () => {
  assert.equal(planOf("agent_stop_empty.json"), null);
  assert.equal(planOf("file_edited.json"), null);
  assert.equal(planOf("no_args.json"), null);
  assert.equal(planOf("agent_stop.json")!.events[0].kind, "session_summary");
});

Deno.test("kiro_ide shim as a process: USER_PROMPT in, stdin never read", async (t) => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const { namespace } = resolveProject(project, { actor: TEST_ACTOR });
  await postJson(
    daemon,
    "/v1/memories",
    makeRecord({
      namespace,
      title: "Leap years break the date parser",
      summary: "February has 29 days in leap years; parseDate rejected 2024-02-29.",
      concepts: ["leap-year"],
    }),
  );
  const run = (f: IdeFixture, stdin?: "open") =>
    runShimProcess("kiro-ide", {
      settings: daemon.settings,
      env: { ...daemon.env, USER_PROMPT: f.USER_PROMPT },
      cwd: project,
      args: f.args,
      stdin,
    });

  await t.step(
    "promptSubmit with stdin left open still exits on its own and prints context",
    async () => {
      const result = await run(fixture<IdeFixture>("kiro_ide0/prompt_submit.json"), "open");
      assert.ok(!result.killed, "the shim waited for stdin to close until the test killed it");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Leap years break the date parser/);
      const [latest] = await storedEvents(daemon);
      assert.equal(latest.kind, "prompt");
      assert.equal(latest.source.surface, "kiro-ide");
      assert.equal(latest.namespace, namespace);
    },
  );

  await t.step("postToolUse stores a failed tool use", async () => {
    const result = await run(fixture<IdeFixture>("kiro_ide0/post_tool_use_failed.json"), "open");
    assert.equal(result.code, 0, result.stderr);
    const [latest] = await storedEvents(daemon);
    assert.equal(dataOf(latest.body).failed, true);
  });

  await t.step("empty agentStop: exit 0, nothing sent, nothing said", async () => {
    const before = (await storedEvents(daemon)).length;
    const result = await run(fixture<IdeFixture>("kiro_ide0/agent_stop_empty.json"), "open");
    assert.equal(result.code, 0);
    assert.equal(result.stdout, "");
    assert.equal(result.stderr, "");
    assert.equal((await storedEvents(daemon)).length, before);
  });

  await t.step("unknown hook type: exit 0 with a note", async () => {
    const result = await run({ args: ["teleport"], USER_PROMPT: "" });
    assert.equal(result.code, 0);
    assert.match(result.stderr, /unknown hook "teleport"/);
  });

  await Deno.remove(project, { recursive: true });
});

Deno.test("plan: --agent-pid is not mistaken for the hook type", () => {
  const plan = kiroIdePlan(["--agent-pid=4242", "promptSubmit"], {
    env: { USER_PROMPT: "hi" },
    cwd: () => "/w",
  });
  assert.equal(plan!.hook, "promptSubmit");
  assert.match(plan!.sessionId, /^kiro-[0-9a-f]{32}$/);
});
