import assert from "node:assert/strict";
import { resolveProject } from "@kiro-learn/core/project";
import { saveLeapYearMemory, startTestDaemon } from "@kiro-learn/collector/testing";
import { codexPlan } from "./codex.ts";
import {
  dataOf,
  fixtureText,
  hungCollector,
  makeDataDir,
  makeProject,
  runShimProcess,
  shimSandbox,
  spoolFiles,
  storedEvents,
  TEST_ACTOR,
  textOf,
} from "./testing.ts";

const SESSION = "01a22530-efd8-78c0-b93d-ca2583dd324e";

/** The project's copy of the real rollout, where the fixtures' `transcript_path` names it. */
async function placeRollout(project: string): Promise<void> {
  const dir = `${project}/.home/.codex/sessions/2026/11/29`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/rollout.jsonl`, fixtureText("codex/rollout.jsonl", project));
}

Deno.test("the shim's plan: a payload without session or cwd gets the process's", () => {
  const plan = codexPlan({ hook_event_name: "Stop" }, { env: {} })!;
  assert.match(plan.sessionId, /^kiro-[0-9a-f]{32}$/);
  assert.equal(plan.cwd, Deno.cwd());
  assert.equal(plan.surface, "codex");
});

Deno.test("codex shim as a process against a real collector: prompt with memory, a turn's end with its tool uses, once", async (t) => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  try {
    await placeRollout(project);
    const { namespace } = resolveProject(project, { actor: TEST_ACTOR });
    await saveLeapYearMemory(daemon, namespace);
    const run = (name: string) =>
      runShimProcess("codex", {
        settings: daemon.settings,
        env: daemon.env,
        cwd: project,
        stdin: fixtureText(`codex/${name}`, project),
      });

    await t.step("UserPromptSubmit prints the project's memory as plain stdout", async () => {
      const result = await run("user_prompt_submit.json");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Date parser leap-year bug/);
      const [latest] = await storedEvents(daemon, namespace);
      assert.equal(latest.kind, "prompt");
      assert.equal(latest.session_id, SESSION);
      assert.equal(latest.source.surface, "codex");
    });

    await t.step("PostToolUse (a hand-written hook) records nothing", async () => {
      const before = (await storedEvents(daemon, namespace)).length;
      const result = await run("post_tool_use.json");
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "");
      assert.equal((await storedEvents(daemon, namespace)).length, before);
    });

    await t.step(
      "Stop stores the turn's failing shell call from the rollout, then the answer",
      async () => {
        const result = await run("stop.json");
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, "", "a turn's end prints nothing");
        const events = await storedEvents(daemon, namespace);
        const tool = events.find((e) => e.kind === "tool_use")!;
        assert.equal(dataOf(tool.body).tool_name, "Bash");
        assert.deepEqual(dataOf(tool.body).tool_input, { command: "false" });
        assert.equal(dataOf(tool.body).failed, true);
        assert.equal(tool.source.surface, "codex");
        assert.equal(tool.valid_time, new Date(1795920296079).toISOString());
        const end = events.find((e) => e.kind === "session_summary")!;
        assert.equal(textOf(end.body), "The check failed.");
      },
    );

    await t.step("the same turn's end again stores its tool use no second time", async () => {
      assert.equal((await run("stop.json")).code, 0);
      const events = await storedEvents(daemon, namespace);
      assert.equal(events.filter((e) => e.kind === "tool_use").length, 1);
    });
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("codex shim with the collector down: exits 0 quickly with valid output, and spools", async () => {
  // Port 9 (discard): nothing listens; the starter is not installed, so nothing starts.
  const data = await makeDataDir({ collector: { host: "127.0.0.1", port: 9 } });
  const project = await makeProject();
  try {
    await placeRollout(project);
    for (const name of ["user_prompt_submit.json", "stop.json"]) {
      const result = await runShimProcess("codex", {
        settings: data.settings,
        env: data.env,
        cwd: project,
        stdin: fixtureText(`codex/${name}`, project),
      });
      assert.ok(!result.killed, `${name}: the hook hung until the test killed it`);
      assert.equal(result.code, 0, result.stderr);
      // Codex adds plain stdout to the context: at most the one line saying memory is off, never
      // opening with `[` (Codex would read it as invalid JSON output and fail the hook).
      assert.ok(
        result.stdout === "" ||
          /^kiro-learn:\n\[kiro-learn\] no project memory/.test(result.stdout),
        result.stdout,
      );
    }
    // The prompt, then the turn's tool use and its end: nothing lost.
    assert.equal(spoolFiles(data.settings.paths.spool).length, 3);
  } finally {
    await Deno.remove(data.dir, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("codex shim: invalid input exits 0 with nothing on stdout and a note on stderr", async () => {
  await using box = await shimSandbox({ collector: { host: "127.0.0.1", port: 9 } });
  const { data, project } = box;
  for (const stdin of ["not json", "[1,2]", ""]) {
    const result = await runShimProcess("codex", {
      settings: data.settings,
      env: data.env,
      cwd: project,
      stdin,
    });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /codex hook: .*nothing recorded/);
  }
  assert.equal(spoolFiles(data.settings.paths.spool).length, 0);
});

Deno.test("codex shim with a hung collector: the prompt hook gives up within its budget, exits 0, and spools", async () => {
  await using hung = hungCollector();
  await using box = await shimSandbox({
    collector: { host: "127.0.0.1", port: hung.port },
  });
  const { data, project } = box;
  const result = await runShimProcess("codex", {
    settings: data.settings,
    env: data.env,
    cwd: project,
    stdin: fixtureText("codex/user_prompt_submit.json", project),
    killAfterMs: 60_000,
  });
  assert.ok(!result.killed, "the prompt hook hung until the test killed it");
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stdout === "" || /^\[kiro-learn\] no project memory/.test(result.stdout));
  assert.equal(spoolFiles(data.settings.paths.spool).length, 1, "the prompt waits in the spool");
});
