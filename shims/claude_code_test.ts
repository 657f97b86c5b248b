import assert from "node:assert/strict";
import { resolveProject } from "@kiro-learn/core/project";
import { IMPOSTOR_INSTRUCTION, startImpostor } from "@kiro-learn/core/testing";
import { saveLeapYearMemory, startTestDaemon } from "@kiro-learn/collector/testing";
import { claudeCodePlan } from "./claude_code.ts";
import {
  dataOf,
  fixtureText,
  makeDataDir,
  makeProject,
  runShimProcess,
  type ShimRun,
  spoolFiles,
  storedEvents,
  TEST_ACTOR,
  textOf,
} from "./testing.ts";

const SESSION = "3f2b8a6e-1c4d-4e9f-a7b2-5d6c8e0f1a23";

/** A data dir whose collector is at `port`, a project, and the Claude Code shim run there. */
interface ShimWithCollector extends AsyncDisposable {
  /** The data dir. */
  data: Awaited<ReturnType<typeof makeDataDir>>;
  /** Runs the shim in the project on the fixture `claude_code/${name}`. */
  run(name: string): Promise<ShimRun>;
}

/** Makes a data dir naming a collector at `port` and a project; disposal removes both. */
async function shimWithCollectorAt(port: number): Promise<ShimWithCollector> {
  const data = await makeDataDir({ collector: { host: "127.0.0.1", port } });
  const project = await makeProject();
  return {
    data,
    run: (name) =>
      runShimProcess("claude-code", {
        settings: data.settings,
        env: data.env,
        cwd: project,
        stdin: fixtureText(`claude_code/${name}`, project),
      }),
    async [Symbol.asyncDispose]() {
      await Deno.remove(data.dir, { recursive: true });
      await Deno.remove(project, { recursive: true });
    },
  };
}

// The plan itself is core's (core/hooks/claude_code_test.ts); the shim supplies what a payload
// lacks from its own process.
Deno.test("the shim's plan: a payload without session or cwd gets the process's", () => {
  const plan = claudeCodePlan({ hook_event_name: "Stop" }, { env: {} })!;
  assert.match(plan.sessionId, /^kiro-[0-9a-f]{32}$/);
  assert.equal(plan.cwd, Deno.cwd());
  assert.deepEqual(plan.events.map((e) => e.kind), ["session_summary"]);
});
Deno.test("claude_code shim as a process against a real collector", async (t) => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const { namespace } = resolveProject(project, { actor: TEST_ACTOR });
  await saveLeapYearMemory(daemon, namespace);
  const run = (name: string, extra: Record<string, string> = {}) =>
    runShimProcess("claude-code", {
      settings: daemon.settings,
      env: { ...daemon.env, ...extra },
      cwd: project,
      stdin: fixtureText(`claude_code/${name}`, project),
    });

  await t.step("UserPromptSubmit prints matching context as plain stdout", async () => {
    const result = await run("user_prompt_submit.json");
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Date parser leap-year bug/);
    assert.doesNotMatch(result.stdout, /hookSpecificOutput/);
    const [latest] = await storedEvents(daemon);
    assert.equal(latest.session_id, SESSION);
    assert.equal(latest.source.surface, "claude-code");
  });

  await t.step("PostToolUseFailure is stored as a failed tool use", async () => {
    const result = await run("post_tool_use_failure.json");
    assert.equal(result.code, 0, result.stderr);
    const [latest] = await storedEvents(daemon);
    assert.equal(latest.kind, "tool_use");
    assert.equal(dataOf(latest.body).failed, true);
    assert.equal(dataOf(latest.body).tool_name, "Bash");
  });

  await t.step("Stop stores last_assistant_message as the turn summary", async () => {
    await run("stop.json");
    const [latest] = await storedEvents(daemon);
    assert.equal(latest.kind, "session_summary");
    assert.match(textOf(latest.body), /both tests pass/);
  });

  await t.step("SessionStart and SessionEnd are stored as notes", async () => {
    assert.equal((await run("session_start.json")).code, 0);
    assert.equal((await run("session_end.json")).code, 0);
    const [end, start] = await storedEvents(daemon);
    assert.deepEqual(start.body, { type: "text", content: "session started" });
    assert.deepEqual(end.body, { type: "text", content: "session ended (prompt_input_exit)" });
  });

  await t.step("unknown hook: exit 0, note, nothing stored", async () => {
    const before = (await storedEvents(daemon)).length;
    const result = await run("unknown_hook.json");
    assert.equal(result.code, 0);
    assert.match(result.stderr, /unknown hook "TimeTravel"/);
    assert.equal((await storedEvents(daemon)).length, before);
  });

  await Deno.remove(project, { recursive: true });
});

Deno.test("SessionEnd with the collector down exits 0 on its own and spools", async () => {
  await using shim = await shimWithCollectorAt(9);
  const { data } = shim;
  const result = await shim.run("session_end.json");
  assert.ok(!result.killed, "SessionEnd hung until the test killed it");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(spoolFiles(data.settings.paths.spool).length, 1);
});

Deno.test("an impostor on the collector's port gets no token and no event, and is not printed", async () => {
  await using impostor = startImpostor();
  await using shim = await shimWithCollectorAt(impostor.port);
  const { data } = shim;
  const result = await shim.run("user_prompt_submit.json");
  assert.ok(!result.killed, "the prompt hook hung until the test killed it");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "", "nothing from the impostor reaches the agent");
  assert.ok(!result.stderr.includes(IMPOSTOR_INSTRUCTION));
  assert.match(result.stderr, /could not prove it is this data dir's kiro-learn collector/);
  assert.equal(spoolFiles(data.settings.paths.spool).length, 1, "the event waits in the spool");
  assert.ok(
    impostor.seen.length > 0,
    "the shim did reach the impostor (the test proves something)",
  );
  for (const request of impostor.seen) {
    assert.equal(request.auth, null, `the token was sent: ${JSON.stringify(request)}`);
    assert.equal(request.body, "", `a body was sent: ${request.body.slice(0, 200)}`);
    assert.doesNotMatch(request.path, /test-token/);
  }
});

Deno.test("a turn's end with --turn-tools stores the turn's tool uses from the transcript first, once", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  try {
    const { namespace } = resolveProject(project, { actor: TEST_ACTOR });
    // The real transcript of a turn with a failing Bash call, where Claude Code keeps it.
    const transcript = `${project}/.claude-projects/${SESSION}.jsonl`;
    await Deno.mkdir(`${project}/.claude-projects`);
    await Deno.writeTextFile(transcript, fixtureText("claude_code/transcript.jsonl", project));
    const stop = JSON.stringify({
      ...JSON.parse(fixtureText("claude_code/stop.json", project)),
      transcript_path: transcript,
    });
    const run = (args: string[]) =>
      runShimProcess("claude-code", {
        settings: daemon.settings,
        env: daemon.env,
        cwd: project,
        stdin: stop,
        args,
      });
    // Without the launcher's argument (an older install's tool hooks still fire): the end only.
    assert.equal((await run([])).code, 0);
    assert.deepEqual((await storedEvents(daemon, namespace)).map((e) => e.kind), [
      "session_summary",
    ]);
    const result = await run(["--turn-tools"]);
    assert.equal(result.code, 0, result.stderr);
    const events = await storedEvents(daemon, namespace);
    assert.deepEqual(events.map((e) => e.kind).sort(), [
      "session_summary",
      "session_summary",
      "tool_use",
    ]);
    const tool = events.find((e) => e.kind === "tool_use")!;
    assert.equal(dataOf(tool.body).tool_name, "Bash");
    assert.equal(dataOf(tool.body).failed, true);
    assert.equal(tool.session_id, SESSION);
    assert.equal(tool.valid_time, "2026-11-25T13:57:14.969Z", "when the tool ran, not the hook");
    // The next turn's end reads on from there: nothing twice.
    assert.equal((await run(["--turn-tools"])).code, 0);
    const after = await storedEvents(daemon, namespace);
    assert.equal(after.filter((e) => e.kind === "tool_use").length, 1);
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});
