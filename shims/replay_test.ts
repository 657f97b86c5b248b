import assert from "node:assert/strict";
import { resolveProject } from "@kiro-learn/core/project";
import { startTestDaemon } from "@kiro-learn/collector/testing";
import { formatResult, intoProject, replay } from "./replay.ts";
import { dataOf, makeProject, storedEvents, TEST_ACTOR, TESTDATA } from "./testing.ts";

Deno.test("replaying the sample bug-fix session stores the expected events", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  try {
    const results = await replay(`${TESTDATA}sample_session.ndjson`, {
      cwd: project,
      env: { ...daemon.env, USER: TEST_ACTOR },
      settings: daemon.settings,
      preferCompiled: false,
    });
    assert.equal(results.length, 9);
    for (const result of results) {
      assert.equal(result.code, 0, `line ${result.line}: ${result.stderr}`);
    }
    assert.ok(results.every((r) => r.stdout === ""), "a fresh project has no memories to inject");

    const events = (await storedEvents(daemon)).reverse();
    assert.deepEqual(events.map((e) => e.kind), [
      "note",
      "prompt",
      "tool_use",
      "tool_use",
      "tool_use",
      "session_summary",
      "prompt",
      "tool_use",
      "tool_use",
      "session_summary",
    ]);
    const { namespace } = resolveProject(project, { actor: TEST_ACTOR });
    assert.ok(events.every((e) => e.namespace === namespace && e.source.surface === "kiro-cli"));
    assert.equal(new Set(events.map((e) => e.session_id)).size, 1, "one session");
    assert.deepEqual(events[1].body, {
      type: "text",
      content: "the date parser test fails on leap years",
    });
    const tools = events.filter((e) => e.kind === "tool_use").map((e) => dataOf(e.body));
    assert.deepEqual(tools.map((t) => t.tool_name), [
      "fs_read",
      "fs_read",
      "execute_bash",
      "fs_write",
      "execute_bash",
    ]);
    assert.equal(tools[0].tool_input.operations[0].path, `${project}/src/date_parser.ts`);
    assert.equal(tools[2].failed, true);
    assert.equal(tools[2].error, "error: RangeError: bad day: 29");
    assert.equal(tools[3].tool_input.command, "str_replace");
    assert.equal(tools[4].failed, undefined);
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("replay routes every surface to its entry and reports bad lines without stopping", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const file = await Deno.makeTempFile({ suffix: ".ndjson" });
  const lines = [
    {
      surface: "claude-code",
      hook: "UserPromptSubmit",
      payload: { session_id: "cc-1", cwd: "${PROJECT}", prompt: "hi there" },
    },
    "not json",
    { surface: "kiro-ide", hook: "promptSubmit", payload: "what about leap seconds?" },
    {
      surface: "kiro-ide",
      hook: "postToolUse",
      payload: { toolName: "executeBash", toolResult: "Exit Code: 2" },
    },
    {
      surface: "kiro-ide",
      hook: "UserPromptSubmit",
      payload: {
        session_id: "ide-1",
        hook_event_name: "UserPromptSubmit",
        cwd: "${PROJECT}",
        prompt: "v1 prompt",
      },
    },
    {
      surface: "kiro-cli",
      hook: "stop",
      payload: { cwd: "${PROJECT}" },
      env: { KIRO_SESSION_ID: "env-session" },
    },
    { surface: "gemini", hook: "x", payload: {} },
  ];
  await Deno.writeTextFile(
    file,
    lines.map((l) => typeof l === "string" ? l : JSON.stringify(l)).join("\n") + "\n",
  );
  try {
    const seen: number[] = [];
    const results = await replay(file, {
      cwd: project,
      env: { ...daemon.env, USER: TEST_ACTOR },
      onResult: (r) => seen.push(r.line),
    });
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(results.map((r) => r.code), [0, -1, 0, 0, 0, 0, -1]);
    assert.match(results[1].stderr, /not valid JSON/);
    assert.match(results[6].stderr, /surface must be one of/);
    const events = (await storedEvents(daemon)).reverse();
    assert.deepEqual(
      events.map((
        e,
      ) => [e.source.surface, e.kind, e.session_id.startsWith("kiro-") ? "derived" : e.session_id]),
      [
        ["claude-code", "prompt", "cc-1"],
        ["kiro-ide", "prompt", "derived"],
        ["kiro-ide", "tool_use", "derived"],
        ["kiro-ide", "prompt", "ide-1"],
        ["kiro-cli", "session_summary", "env-session"],
      ],
    );
    assert.equal(events[0].source.project_path, project);
    assert.equal(dataOf(events[2].body).failed, true);
  } finally {
    await Deno.remove(file);
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("replay.ts as a command prints one line per firing and fails on a bad line", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("./replay.ts", import.meta.url).pathname,
        `${TESTDATA}sample_session.ndjson`,
        `--cwd=${project}`,
      ],
      env: { ...daemon.env, USER: TEST_ACTOR },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.equal(stdout.trim().split("\n").filter((l) => l.startsWith("line ")).length, 9);
    assert.match(stdout, /^line 1: kiro-cli agentSpawn exit 0 in \d+ ms$/m);
    assert.equal((await storedEvents(daemon)).length, 10);
  } finally {
    await Deno.remove(project, { recursive: true });
  }
  assert.match(
    formatResult({
      line: 2,
      surface: "",
      hook: "",
      code: -1,
      stdout: "",
      stderr: "line is not valid JSON",
      ms: 0,
    }),
    /line 2: - - skipped \(line is not valid JSON\)/,
  );
  assert.equal(
    formatResult({
      line: 1,
      surface: "kiro-cli",
      hook: "userPromptSubmit",
      code: 0,
      stdout: "ctx\nmore\n",
      stderr: "",
      ms: 5,
    }),
    "line 1: kiro-cli userPromptSubmit exit 0 in 5 ms\n    ctx\n    more",
  );
});

Deno.test("a recorded session's own directory is replaced by the replay's project", () => {
  assert.deepEqual(
    intoProject({ hook_event_name: "Stop", cwd: "/home/dev/recorded-app", prompt: "x" }, "/p"),
    { hook_event_name: "Stop", cwd: "/p", prompt: "x" },
  );
  assert.deepEqual(
    intoProject({ cwd: "/r", hook_events: [{ tool_name: "fs_read", cwd: "/r" }, "odd"] }, "/p"),
    { cwd: "/p", hook_events: [{ tool_name: "fs_read", cwd: "/p" }, "odd"] },
  );
  assert.equal(intoProject("USER_PROMPT text", "/p"), "USER_PROMPT text");
});
