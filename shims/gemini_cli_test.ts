import assert from "node:assert/strict";
import { resolveProject } from "@kiro-learn/core/project";
import {
  LEAP_YEAR_TITLE,
  saveLeapYearMemory,
  startTestDaemon,
} from "@kiro-learn/collector/testing";
import { TURN_TOOLS_ARG } from "@kiro-learn/core/hooks";
import { geminiCliPlan, geminiOutput } from "./gemini_cli.ts";
import {
  dataOf,
  fixtureText,
  hungCollector,
  jsonObjectOutput,
  makeProject,
  runShimProcess,
  shimSandbox,
  spoolFiles,
  storedEvents,
  TEST_ACTOR,
  textOf,
} from "./testing.ts";

const SESSION = "825e0459-10db-4700-92ac-5e950123b5cd";

Deno.test("the shim's plan: a payload without session or cwd gets the process's", () => {
  const plan = geminiCliPlan({ hook_event_name: "AfterAgent" }, { env: {} })!;
  assert.match(plan.sessionId, /^kiro-[0-9a-f]{32}$/);
  assert.equal(plan.cwd, Deno.cwd());
  assert.equal(plan.surface, "gemini-cli");
  assert.equal(geminiOutput("", null), "{}\n");
});

Deno.test("gemini_cli shim as a process against a real collector", async (t) => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const { namespace } = resolveProject(project, { actor: TEST_ACTOR });
  await saveLeapYearMemory(daemon, namespace);
  const run = (name: string, extra: Record<string, string> = {}) =>
    runShimProcess("gemini-cli", {
      settings: daemon.settings,
      env: { ...daemon.env, ...extra },
      cwd: project,
      stdin: fixtureText(`gemini_cli/${name}`, project),
    });
  try {
    await t.step(
      "BeforeAgent: the prompt is recorded, the memory goes back as additionalContext",
      async () => {
        const result = await run("before_agent.json");
        assert.equal(result.code, 0, result.stderr);
        const output = jsonObjectOutput(result.stdout) as {
          hookSpecificOutput: { hookEventName: string; additionalContext: string };
        };
        assert.equal(output.hookSpecificOutput.hookEventName, "BeforeAgent");
        assert.match(output.hookSpecificOutput.additionalContext, new RegExp(LEAP_YEAR_TITLE));
        const [latest] = await storedEvents(daemon, namespace);
        assert.equal(latest.kind, "prompt");
        assert.equal(textOf(latest.body), "the date parser test fails on leap years");
        assert.equal(latest.session_id, SESSION);
        assert.equal(latest.source.surface, "gemini-cli");
        assert.equal(latest.source.project_path, project);
      },
    );

    await t.step("AfterTool: a failing shell command is a failed tool use; prints {}", async () => {
      const result = await run("after_tool_failed_shell.json");
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(jsonObjectOutput(result.stdout), {});
      const [latest] = await storedEvents(daemon, namespace);
      assert.equal(latest.kind, "tool_use");
      assert.equal(dataOf(latest.body).tool_name, "run_shell_command");
      assert.deepEqual(dataOf(latest.body).tool_input, { command: "false" });
      assert.equal(dataOf(latest.body).failed, true);
    });

    await t.step("AfterTool: a tool's reported error is kept", async () => {
      assert.equal((await run("after_tool_error.json")).code, 0);
      const [latest] = await storedEvents(daemon, namespace);
      assert.equal(dataOf(latest.body).failed, true);
      assert.equal(dataOf(latest.body).error, `File not found: ${project}/missing.txt`);
    });

    await t.step("AfterAgent: the turn's answer as the turn's summary", async () => {
      const result = await run("after_agent.json");
      assert.deepEqual(jsonObjectOutput(result.stdout), {});
      const [latest] = await storedEvents(daemon, namespace);
      assert.equal(latest.kind, "session_summary");
      assert.equal(textOf(latest.body), "The check failed: false always exits 1.");
    });

    await t.step("each firing is recorded once", async () => {
      const events = await storedEvents(daemon, namespace);
      assert.deepEqual(events.map((e) => e.kind).reverse(), [
        "prompt",
        "tool_use",
        "tool_use",
        "session_summary",
      ]);
    });

    await t.step("the memory system's own agents: nothing recorded, still {}", async () => {
      const before = (await storedEvents(daemon)).length;
      const result = await run("after_agent.json", { KIRO_LEARN_INTERNAL: "1" });
      assert.equal(result.code, 0);
      assert.deepEqual(jsonObjectOutput(result.stdout), {});
      assert.equal((await storedEvents(daemon)).length, before);
    });
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("AfterAgent reads the turn's tool uses from the chat file, only when the launcher asks", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  try {
    const { namespace } = resolveProject(project, { actor: TEST_ACTOR });
    // The real chat file, where the payload names it (under the project: the shim may read it).
    const chat = `${project}/.home/.gemini/tmp/app/chats/session.jsonl`;
    await Deno.mkdir(`${project}/.home/.gemini/tmp/app/chats`, { recursive: true });
    await Deno.writeTextFile(chat, fixtureText("gemini_cli/chat.jsonl", project));
    const stdin = JSON.stringify({
      ...JSON.parse(fixtureText("gemini_cli/after_agent.json", project)),
      transcript_path: chat,
    });
    const run = (args: string[]) =>
      runShimProcess("gemini-cli", {
        settings: daemon.settings,
        env: daemon.env,
        cwd: project,
        stdin,
        args,
      });
    // Without the launcher's word (an older install, whose AfterTool hooks still fire): the
    // turn's end alone.
    const plain = await run([]);
    assert.deepEqual([plain.code, jsonObjectOutput(plain.stdout)], [0, {}]);
    assert.deepEqual((await storedEvents(daemon, namespace)).map((e) => e.kind), [
      "session_summary",
    ]);
    const asked = await run([TURN_TOOLS_ARG]);
    assert.deepEqual([asked.code, jsonObjectOutput(asked.stdout)], [0, {}]);
    const events = await storedEvents(daemon, namespace);
    const tools = events.filter((e) => e.kind === "tool_use");
    assert.equal(tools.length, 1, "the shell call; kiro-learn's own MCP tool is not recorded");
    assert.equal(dataOf(tools[0].body).tool_name, "run_shell_command");
    assert.equal(dataOf(tools[0].body).failed, true);
    assert.equal(tools[0].source.surface, "gemini-cli");
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("bad input (not JSON, not an object, empty): exit 0 and {} on stdout, nothing else", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  try {
    for (const stdin of ["{not json", "[1,2]", ""]) {
      const result = await runShimProcess("gemini-cli", {
        settings: daemon.settings,
        env: daemon.env,
        cwd: project,
        stdin,
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "{}\n", `stdin ${JSON.stringify(stdin)}`);
    }
    assert.equal((await storedEvents(daemon)).length, 0);
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("collector down: the prompt is spooled, and the hook prints valid JSON", async () => {
  await using box = await shimSandbox({ collector: { host: "127.0.0.1", port: 9 } });
  const { data, project } = box;
  const result = await runShimProcess("gemini-cli", {
    settings: data.settings,
    env: data.env,
    cwd: project,
    stdin: fixtureText("gemini_cli/before_agent.json", project),
  });
  assert.ok(!result.killed, "the hook hung until the test killed it");
  assert.equal(result.code, 0, result.stderr);
  // Valid JSON whatever it says (the down notice, when the collector cannot be started).
  jsonObjectOutput(result.stdout);
  assert.equal(spoolFiles(data.settings.paths.spool).length, 1, "the prompt waits in the spool");
});

Deno.test("collector hung (never answers): the hook gives up within its timeout, prints {} and spools", async () => {
  await using hung = hungCollector();
  const port = hung.port;
  await using box = await shimSandbox({
    collector: { host: "127.0.0.1", port },
    shim: { timeoutMs: 400 },
  });
  const { data, project } = box;
  const result = await runShimProcess("gemini-cli", {
    settings: data.settings,
    env: data.env,
    cwd: project,
    stdin: fixtureText("gemini_cli/after_tool_failed_shell.json", project),
  });
  assert.ok(!result.killed, "the hook hung until the test killed it");
  assert.equal(result.code, 0);
  assert.deepEqual(jsonObjectOutput(result.stdout), {});
  assert.ok(hung.held.length >= 1, "the shim did connect");
  assert.equal(spoolFiles(data.settings.paths.spool).length, 1);
});

Deno.test("stdin never closed: the hook gives up reading it, still with {} on stdout", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  try {
    const result = await runShimProcess("gemini-cli", {
      settings: daemon.settings,
      env: daemon.env,
      cwd: project,
      stdin: "open",
    });
    assert.ok(!result.killed, "the hook hung until the test killed it");
    assert.equal(result.code, 0);
    assert.equal(result.stdout, "{}\n");
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});
