import assert from "node:assert/strict";
import { resolveProject } from "@kiro-learn/core/project";
import { makeRecord } from "@kiro-learn/core/testing";
import { postJson, startTestDaemon } from "@kiro-learn/collector/testing";
import { AGENT_PID_ARG, hookCommandLine, shimCommand } from "@kiro-learn/core/launch";
import { SHIM_BODY_CAP_BYTES, TRUNCATION_MARKER } from "@kiro-learn/core/schemas/limits";
import { kiroCliPlan } from "./kiro_cli.ts";
import {
  dataOf,
  fixture,
  fixtureText,
  hugeToolPayload,
  makeProject,
  runShimProcess,
  storedEvents,
  TEST_ACTOR,
} from "./testing.ts";
import { serializedBytes } from "@kiro-learn/core/hooks";

const opts = {
  env: {},
  fallbackSessionId: () => "derived-session",
  fallbackCwd: () => "/fallback",
};

Deno.test("plan: agentSpawn is a session start (resume) plus its first prompt (retrieval)", () => {
  const plan = kiroCliPlan(fixture("kiro_cli/agent_spawn.json"), opts)!;
  assert.equal(plan.surface, "kiro-cli");
  assert.equal(plan.sessionId, "derived-session");
  assert.equal(plan.cwd, "/tmp/project");
  assert.equal(plan.timeout, "retrieve");
  assert.deepEqual(plan.events.map((e) => [e.kind, e.query, e.print]), [
    ["note", "resume", true],
    ["prompt", "retrieve", true],
  ]);
  assert.deepEqual(plan.events[0].body, { type: "text", content: "session started" });
  assert.deepEqual(plan.events[1].body, {
    type: "text",
    content: "why does the date parser reject leap days?",
  });
});

Deno.test("plan: agentSpawn without a prompt field takes USER_PROMPT, or records the start only", () => {
  const payload = fixture("kiro_cli/agent_spawn_no_prompt.json");
  const withEnv = kiroCliPlan(payload, { ...opts, env: { USER_PROMPT: "from env" } })!;
  assert.deepEqual(withEnv.events[1].body, { type: "text", content: "from env" });
  assert.equal(kiroCliPlan(payload, opts)!.events.length, 1);
});

Deno.test('plan: execute_bash with exit_status "1" is a failed tool use', () => {
  const plan = kiroCliPlan(fixture("kiro_cli/post_tool_use_bash_failed.json"), opts)!;
  assert.equal(plan.timeout, "store");
  const data = (plan.events[0].body as { data: Record<string, unknown> }).data;
  assert.equal(data.failed, true);
  assert.equal(data.error, "error: RangeError: bad day: 29");
  assert.equal(data.tool_name, "execute_bash");
  const ok = kiroCliPlan(fixture("kiro_cli/post_tool_use_bash_ok.json"), opts)!;
  assert.equal((ok.events[0].body as { data: Record<string, unknown> }).data.failed, undefined);
  const err = kiroCliPlan(fixture("kiro_cli/post_tool_use_error.json"), opts)!;
  assert.equal((err.events[0].body as { data: Record<string, unknown> }).data.failed, true);
});

Deno.test("plan: deferred postToolUse becomes one event per element, own tools skipped", () => {
  const plan = kiroCliPlan(fixture("kiro_cli/post_tool_use_deferred.json"), opts)!;
  const names = plan.events.map((e) => (e.body as { data: { tool_name: string } }).data.tool_name);
  assert.deepEqual(names, ["fs_read", "execute_bash", "fs_write"]);
  assert.equal((plan.events[1].body as { data: Record<string, unknown> }).data.failed, true);
  assert.ok(plan.events.every((e) => e.cwd === "/tmp/project"));
});

Deno.test("plan: the memory system's own tool, preToolUse and unknown hooks record nothing", () => {
  assert.equal(kiroCliPlan(fixture("kiro_cli/post_tool_use_own_tool.json"), opts), null);
  assert.equal(kiroCliPlan(fixture("kiro_cli/pre_tool_use.json"), opts), null);
  assert.equal(kiroCliPlan(fixture("kiro_cli/unknown_hook.json"), opts), null);
  assert.equal(kiroCliPlan(fixture("kiro_cli/no_hook_name.json"), opts), null);
});

Deno.test("plan: stop records the turn summary, even when the payload has none", () => {
  const plan = kiroCliPlan(fixture("kiro_cli/stop.json"), opts)!;
  assert.equal(plan.events[0].kind, "session_summary");
  assert.match((plan.events[0].body as { content: string }).content, /leap years/);
  const bare = kiroCliPlan(fixture("kiro_cli/stop_documented.json"), opts)!;
  assert.deepEqual(bare.events[0].body, { type: "text", content: "" });
});

Deno.test("plan: v1 hook files — CLI 3.x is kiro-cli, IDE 1.x (session_id) is kiro-ide", () => {
  const cli = kiroCliPlan(fixture("kiro_v1/cli3_session_start.json"), opts)!;
  assert.equal(cli.surface, "kiro-cli");
  assert.equal(cli.sessionId, "derived-session");
  assert.equal(cli.events[0].query, "resume");
  const ide = kiroCliPlan(fixture("kiro_v1/ide_user_prompt_submit.json"), opts)!;
  assert.equal(ide.surface, "kiro-ide");
  assert.equal(ide.sessionId, "0b7c6f0e-5f3a-4c1e-9d1a-2f0c4b8e9a11");
  const tool = kiroCliPlan(fixture("kiro_v1/ide_post_tool_use.json"), opts)!;
  const data = (tool.events[0].body as { data: Record<string, unknown> }).data;
  assert.equal(data.failed, true);
  assert.equal(data.error, "error: RangeError: bad day: 29");
  const edit = kiroCliPlan(fixture("kiro_v1/ide_post_tool_use_edit.json"), opts)!;
  assert.equal((edit.events[0].body as { data: Record<string, unknown> }).data.failed, undefined);
  assert.equal(
    kiroCliPlan(fixture("kiro_v1/ide_stop.json"), opts)!.events[0].kind,
    "session_summary",
  );
  const forced = kiroCliPlan(fixture("kiro_v1/cli3_session_start.json"), {
    ...opts,
    args: ["--surface=kiro-ide"],
  })!;
  assert.equal(forced.surface, "kiro-ide");
});

Deno.test("plan: Kiro CLI 3.x (KIRO_SESSION_ID in the environment) is kiro-cli despite a session_id", () => {
  // Kiro CLI 3.x sends `session_id` on stdin like the IDE 1.x, and exports the same value as
  // KIRO_SESSION_ID to every hook; the IDE exports nothing of the kind.
  const payload = fixture("kiro_v1/cli3_user_prompt_submit.json");
  const cli = kiroCliPlan(payload, {
    ...opts,
    env: { KIRO_SESSION_ID: "sess_c9b023e7-578f-46a6-8708-a4c8190fd613" },
  })!;
  assert.equal(cli.surface, "kiro-cli");
  assert.equal(cli.sessionId, "sess_c9b023e7-578f-46a6-8708-a4c8190fd613");
  assert.equal(kiroCliPlan(payload, opts)!.surface, "kiro-ide");
  const forced = kiroCliPlan(payload, {
    ...opts,
    env: { KIRO_SESSION_ID: "sess_c9b023e7-578f-46a6-8708-a4c8190fd613" },
    args: ["--surface=kiro-ide"],
  })!;
  assert.equal(forced.surface, "kiro-ide");
});

Deno.test("kiro_cli shim as a process against a real collector", async (t) => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const empty = await makeProject();
  const { namespace } = resolveProject(project, { actor: TEST_ACTOR });
  const run = (payload: string | Uint8Array, extra: Record<string, string> = {}, cwd = project) =>
    runShimProcess("kiro-cli", {
      settings: daemon.settings,
      env: { ...daemon.env, ...extra },
      cwd,
      stdin: payload,
    });
  const count = async () => (await storedEvents(daemon)).length;

  const record = makeRecord({
    namespace,
    title: "Date parser rejects February 29 in leap years",
    summary: "parseDate checked days against a fixed table where February always has 28 days, " +
      "so leap days like 2024-02-29 threw RangeError: bad day: 29.",
    facts: ["leap years: divisible by 4, except centuries not divisible by 400"],
    concepts: ["leap-year", "date-parsing"],
    files_touched: ["src/date_parser.ts"],
    observation_type: "error",
  });
  const seeded = await postJson(daemon, "/v1/memories", record);
  assert.equal(seeded.status, 200, await seeded.text());

  await t.step("a prompt that matches a memory prints its context, and is stored", async () => {
    const result = await run(fixtureText("kiro_cli/user_prompt_submit.json", project));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /February 29/);
    assert.doesNotMatch(result.stdout, /\[kiro-learn\]/);
    const [latest] = await storedEvents(daemon);
    assert.equal(latest.kind, "prompt");
    assert.equal(latest.namespace, namespace);
    assert.equal(latest.source.surface, "kiro-cli");
    assert.equal(latest.source.project_path, project);
    assert.equal(latest.actor_id, TEST_ACTOR);
    assert.deepEqual(latest.body, {
      type: "text",
      content: "the date parser test fails on leap years",
    });
  });

  await t.step("a prompt in a project with no memories prints nothing", async () => {
    const result = await run(fixtureText("kiro_cli/user_prompt_submit.json", empty), {}, empty);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "");
  });

  await t.step(
    "agentSpawn stores the start note and the prompt; never prints a session banner",
    async () => {
      const before = await count();
      // A new agent process is a new session (the earlier steps shared this test's pid).
      const result = await run(fixtureText("kiro_cli/agent_spawn.json", project), {
        KIRO_SESSION_ID: "spawned-agent-session",
      });
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout, /kiro-learn session/);
      assert.match(result.stdout, /February 29/);
      const events = await storedEvents(daemon);
      assert.equal(events.length, before + 2);
      assert.deepEqual(events.slice(0, 2).map((e) => e.kind).sort(), ["note", "prompt"]);
      assert.equal(events[0].session_id, events[1].session_id);
    },
  );

  await t.step(
    "Kiro CLI 2.x first prompt: agentSpawn then userPromptSubmit store and print it once",
    async () => {
      const env = { KIRO_SESSION_ID: "kiro-2x-first-prompt" };
      const spawn = await run(fixtureText("kiro_cli/agent_spawn.json", project), env);
      assert.equal(spawn.code, 0, spawn.stderr);
      assert.match(spawn.stdout, /February 29/);
      const submit = await run(fixtureText("kiro_cli/user_prompt_submit_first.json", project), env);
      assert.equal(submit.code, 0, submit.stderr);
      assert.equal(submit.stdout, "", "the context was given by agentSpawn already");
      const prompts = (await storedEvents(daemon)).filter((e) =>
        e.session_id === "kiro-2x-first-prompt" && e.kind === "prompt"
      );
      assert.equal(prompts.length, 1);
      // The user's next prompt is stored as usual.
      const next = await run(fixtureText("kiro_cli/user_prompt_submit.json", project), env);
      assert.equal(next.code, 0, next.stderr);
      const [latest] = await storedEvents(daemon);
      assert.equal(latest.kind, "prompt");
      assert.equal(latest.session_id, "kiro-2x-first-prompt");
    },
  );

  await t.step("a failed execute_bash is stored with failed:true and its error line", async () => {
    const result = await run(fixtureText("kiro_cli/post_tool_use_bash_failed.json", project));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "");
    const [latest] = await storedEvents(daemon);
    assert.equal(latest.kind, "tool_use");
    const data = (latest.body as { data: Record<string, unknown> }).data;
    assert.equal(data.failed, true);
    assert.equal(data.error, "error: RangeError: bad day: 29");
  });

  await t.step("a deferred postToolUse stores one event per tool", async () => {
    const before = await count();
    const result = await run(fixtureText("kiro_cli/post_tool_use_deferred.json", project));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await count(), before + 3);
  });

  await t.step(
    "malformed, empty, non-object stdin and unknown hooks: exit 0, nothing stored",
    async () => {
      const before = await count();
      for (
        const name of ["malformed.txt", "empty.txt", "not_object.txt", "kiro_cli/unknown_hook.json"]
      ) {
        const result = await run(fixtureText(name, project));
        assert.equal(result.code, 0, `${name}: ${result.stderr}`);
        assert.equal(result.stdout, "", name);
        assert.match(result.stderr, /^\[kiro-learn\] /, name);
      }
      assert.match(
        (await run(fixtureText("kiro_cli/unknown_hook.json", project))).stderr,
        /unknown hook/,
      );
      assert.equal(await count(), before);
    },
  );

  await t.step(
    "a >1 MiB tool response is stored truncated, with the marker, under the cap",
    async () => {
      const result = await run(JSON.stringify(hugeToolPayload(project)));
      assert.equal(result.code, 0, result.stderr);
      const [latest] = await storedEvents(daemon);
      assert.equal(latest.kind, "tool_use");
      assert.ok(serializedBytes(latest.body) <= SHIM_BODY_CAP_BYTES);
      const stdout = dataOf(latest.body).tool_response.result[0].stdout as string;
      assert.ok(stdout.endsWith(TRUNCATION_MARKER));
      assert.ok(stdout.length > 100_000);
    },
  );

  await t.step("KIRO_LEARN_INTERNAL: nothing posted, nothing printed", async () => {
    const before = await count();
    const result = await run(fixtureText("kiro_cli/user_prompt_submit.json", project), {
      KIRO_LEARN_INTERNAL: "1",
    });
    assert.equal(result.code, 0);
    assert.equal(result.stdout, "");
    assert.equal(result.stderr, "");
    assert.equal(await count(), before);
  });

  await t.step("the memory system's own tool is not captured", async () => {
    const before = await count();
    const result = await run(fixtureText("kiro_cli/post_tool_use_own_tool.json", project));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await count(), before);
  });

  await t.step(
    "Kiro IDE 1.x payloads are stored as kiro-ide with the payload's session id",
    async () => {
      const result = await run(fixtureText("kiro_v1/ide_post_tool_use.json", project));
      assert.equal(result.code, 0, result.stderr);
      const [latest] = await storedEvents(daemon);
      assert.equal(latest.source.surface, "kiro-ide");
      assert.equal(latest.session_id, "0b7c6f0e-5f3a-4c1e-9d1a-2f0c4b8e9a11");
      assert.equal(dataOf(latest.body).failed, true);
    },
  );

  await t.step(
    "Kiro CLI 3.x payloads (session_id and KIRO_SESSION_ID) are stored as kiro-cli",
    async () => {
      const result = await run(fixtureText("kiro_v1/cli3_user_prompt_submit.json", project), {
        KIRO_SESSION_ID: "sess_c9b023e7-578f-46a6-8708-a4c8190fd613",
      });
      assert.equal(result.code, 0, result.stderr);
      const [latest] = await storedEvents(daemon);
      assert.equal(latest.kind, "prompt");
      assert.equal(latest.source.surface, "kiro-cli");
      assert.equal(latest.session_id, "sess_c9b023e7-578f-46a6-8708-a4c8190fd613");
    },
  );

  await t.step("KIRO_SESSION_ID from the environment is the session id", async () => {
    await run(fixtureText("kiro_cli/stop.json", project), {
      KIRO_SESSION_ID: "kiro-env-session-1",
    });
    const [latest] = await storedEvents(daemon);
    assert.equal(latest.kind, "session_summary");
    assert.equal(latest.session_id, "kiro-env-session-1");
  });

  await t.step(
    "hooks run through a shell share one session: `exec` or --agent-pid=$PPID",
    async () => {
      const argv = shimCommand("kiro-cli", {
        settings: daemon.settings,
        projectRoots: [project],
        preferCompiled: false,
      });
      const fire = async (command: string) => {
        const child = new Deno.Command("sh", {
          args: ["-c", command],
          cwd: project,
          env: { ...daemon.env, USER: TEST_ACTOR },
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(fixtureText("kiro_cli/stop.json", project)));
        await writer.close();
        assert.equal((await child.output()).code, 0);
        return (await storedEvents(daemon))[0].session_id;
      };
      const viaArg = `${hookCommandLine(argv).slice("exec ".length)} ${AGENT_PID_ARG} || true`;
      const ids = [
        await fire(hookCommandLine(argv)),
        await fire(hookCommandLine(argv)),
        await fire(viaArg),
        await fire(viaArg),
      ];
      assert.equal(new Set(ids).size, 1, ids.join(" "));
    },
  );

  await Deno.remove(project, { recursive: true });
  await Deno.remove(empty, { recursive: true });
});
