import assert from "node:assert/strict";
import { join } from "node:path";
import { resolveProject } from "@kiro-learn/core/project";
import {
  LEAP_YEAR_TITLE,
  saveLeapYearMemory,
  startTestDaemon,
} from "@kiro-learn/collector/testing";
import { copilotCliPlan, copilotOutput, readTail } from "./copilot_cli.ts";
import {
  dataOf,
  fixture,
  fixtureText,
  hungCollector,
  jsonObjectOutput,
  makeProject,
  runShimProcess,
  type ShimSandbox,
  shimSandbox,
  spoolFiles,
  storedEvents,
  TEST_ACTOR,
  textOf,
} from "./testing.ts";

const SESSION = "3474568a-3e76-4627-8796-504897f5662c";

Deno.test("the shim's plan on recorded payloads: the event comes from the command line", () => {
  const plan = (name: string, event: string) =>
    copilotCliPlan(fixture(`copilot_cli/${name}`, "/home/dev/app"), { env: {}, args: [event] })!;
  const prompt = plan("user_prompt_submitted.json", "userPromptSubmitted");
  assert.equal(prompt.surface, "copilot-cli");
  assert.equal(prompt.sessionId, SESSION);
  assert.equal(prompt.cwd, "/home/dev/app");
  assert.deepEqual(prompt.events.map((e) => [e.kind, e.print]), [["prompt", true]]);
  const shell = plan("post_tool_use_failed_shell.json", "postToolUse");
  assert.equal(dataOf(shell.events[0].body).failed, true);
  assert.equal(
    dataOf(shell.events[0].body).error,
    "ls: cannot access '/nonexistent-kl': No such file or directory",
  );
  const ok = plan("post_tool_use_ok_shell.json", "postToolUse");
  assert.equal(dataOf(ok.events[0].body).failed, undefined);
  const view = plan("post_tool_use_failure.json", "postToolUseFailure");
  assert.equal(dataOf(view.events[0].body).error, "Path does not exist");
  assert.equal(plan("agent_stop.json", "agentStop").events[0].kind, "session_summary");
  // A flag before the event is not the event.
  const flagged = copilotCliPlan(fixture("copilot_cli/user_prompt_submitted.json"), {
    env: {},
    args: ["--no-wait", "userPromptSubmitted"],
  });
  assert.equal(flagged?.hook, "userPromptSubmitted");
  assert.equal(copilotOutput("", null), "{}\n");
});

Deno.test("readTail: the end of a file only, and '' for a file that is not there", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "events.jsonl");
    await Deno.writeTextFile(file, "a".repeat(100) + "\nlast line\n");
    assert.equal(await readTail(file, 10), "last line\n");
    assert.equal(await readTail(join(dir, "missing.jsonl")), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("copilot_cli shim as a process against a real collector", async (t) => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const { namespace } = resolveProject(project, { actor: TEST_ACTOR });
  await saveLeapYearMemory(daemon, namespace);
  const transcript = join(project, "events.jsonl");
  await Deno.writeTextFile(transcript, fixtureText("copilot_cli/transcript.jsonl", project));
  const run = (name: string, event: string, extra: Record<string, string> = {}) =>
    runShimProcess("copilot-cli", {
      settings: daemon.settings,
      env: { ...daemon.env, ...extra },
      cwd: project,
      args: [event],
      stdin: fixtureText(`copilot_cli/${name}`, project).replaceAll(
        "${HOME}/.copilot/session-state/3474568a-3e76-4627-8796-504897f5662c/events.jsonl",
        transcript,
      ),
    });
  try {
    await t.step(
      "userPromptSubmitted: recorded, the memory goes back as additionalContext",
      async () => {
        const result = await run("user_prompt_submitted.json", "userPromptSubmitted");
        assert.equal(result.code, 0, result.stderr);
        const output = jsonObjectOutput(result.stdout) as { additionalContext: string };
        assert.match(output.additionalContext, new RegExp(LEAP_YEAR_TITLE));
        const [latest] = await storedEvents(daemon, namespace);
        assert.equal(latest.kind, "prompt");
        assert.equal(textOf(latest.body), "the date parser test fails on leap years");
        assert.equal(latest.session_id, SESSION);
        assert.equal(latest.source.surface, "copilot-cli");
        assert.equal(latest.source.project_path, project);
      },
    );

    await t.step(
      "postToolUse: a failing shell command is a failed tool use; prints {}",
      async () => {
        const result = await run("post_tool_use_failed_shell.json", "postToolUse");
        assert.equal(result.code, 0, result.stderr);
        assert.deepEqual(jsonObjectOutput(result.stdout), {});
        const [latest] = await storedEvents(daemon, namespace);
        assert.equal(latest.kind, "tool_use");
        assert.equal(dataOf(latest.body).tool_name, "bash");
        assert.equal(dataOf(latest.body).failed, true);
      },
    );

    await t.step("postToolUseFailure: the tool's error is kept", async () => {
      assert.equal((await run("post_tool_use_failure.json", "postToolUseFailure")).code, 0);
      const [latest] = await storedEvents(daemon, namespace);
      assert.equal(dataOf(latest.body).error, "Path does not exist");
    });

    await t.step("agentStop: the turn's answer, read from the transcript", async () => {
      const result = await run("agent_stop.json", "agentStop");
      assert.deepEqual(jsonObjectOutput(result.stdout), {});
      const [latest] = await storedEvents(daemon, namespace);
      assert.equal(latest.kind, "session_summary");
      assert.equal(textOf(latest.body), "The check failed: ls exits 2 on a missing path.");
    });

    await t.step(
      "agentStop before Copilot wrote the turn: the hook waits for it, the answer is this turn's",
      async () => {
        const full = await Deno.readTextFile(transcript);
        const lines = full.trimEnd().split("\n");
        // What the file held when the hook started: its start, but not yet the turn's answer
        // (Copilot writes the transcript behind, not always in order).
        const cut = lines.findLastIndex((l) => l.includes('"assistant.message"'));
        const without = lines.filter((_, i) => i !== cut);
        await Deno.writeTextFile(transcript, without.join("\n") + "\n");
        const late = (async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          await Deno.writeTextFile(transcript, lines[cut] + "\n", { append: true });
        })();
        const result = await run("agent_stop.json", "agentStop");
        await late;
        assert.equal(result.code, 0, result.stderr);
        const [latest] = await storedEvents(daemon, namespace);
        assert.equal(latest.kind, "session_summary");
        assert.equal(textOf(latest.body), "The check failed: ls exits 2 on a missing path.");
      },
    );

    await t.step("each firing is recorded once", async () => {
      const events = await storedEvents(daemon, namespace);
      assert.deepEqual(events.map((e) => e.kind).reverse(), [
        "prompt",
        "tool_use",
        "tool_use",
        "session_summary",
        "session_summary",
      ]);
    });

    await t.step("no event on the command line: nothing recorded, still {}", async () => {
      const before = (await storedEvents(daemon)).length;
      const result = await run("user_prompt_submitted.json", "--no-such-flag");
      assert.equal(result.code, 0);
      assert.deepEqual(jsonObjectOutput(result.stdout), {});
      assert.equal((await storedEvents(daemon)).length, before);
    });
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("bad input (not JSON, not an object, empty): exit 0 and {} on stdout", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  try {
    for (const stdin of ["{not json", "[1,2]", ""]) {
      const result = await runShimProcess("copilot-cli", {
        settings: daemon.settings,
        env: daemon.env,
        cwd: project,
        args: ["userPromptSubmitted"],
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

/**
 * Runs the prompt hook of a session whose collector cannot answer: it must end on its own, exit
 * 0, print valid JSON and leave the prompt in the spool.
 */
async function promptSpooled(box: ShimSandbox): Promise<void> {
  const { data, project } = box;
  const result = await runShimProcess("copilot-cli", {
    settings: data.settings,
    env: data.env,
    cwd: project,
    args: ["userPromptSubmitted"],
    stdin: fixtureText("copilot_cli/user_prompt_submitted.json", project),
  });
  assert.ok(!result.killed, "the hook hung until the test killed it");
  assert.equal(result.code, 0, result.stderr);
  jsonObjectOutput(result.stdout);
  assert.equal(spoolFiles(data.settings.paths.spool).length, 1, "the prompt waits in the spool");
}

Deno.test("collector down: the prompt is spooled, and the hook prints valid JSON", async () => {
  await using box = await shimSandbox({ collector: { host: "127.0.0.1", port: 9 } });
  await promptSpooled(box);
});

Deno.test("collector hung (never answers): the prompt hook gives up within its timeout, prints valid JSON and spools", async () => {
  await using hung = hungCollector();
  await using box = await shimSandbox({
    collector: { host: "127.0.0.1", port: hung.port },
    shim: { timeoutMs: 400 },
  });
  await promptSpooled(box);
  assert.ok(hung.held.length >= 1, "the shim did connect");
});
