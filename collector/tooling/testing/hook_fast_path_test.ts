// The installed Claude Code hook launcher, for real: the `sh` script `kiro-learn install` writes,
// real curl, a real collector daemon, real Claude Code payloads (shims/testdata). Its fast path
// (the collector's Unix socket) prints what the shim prints; every way it can fail (no socket, no
// `.git` to decide the project, collector hung, collector killed) ends in the shim, which delivers
// or spools the same event, once. A hook that only stores returns at once and delivers in the
// background: each run here waits for that delivery to end before it looks.
import assert from "node:assert/strict";
import { STORE_ONLY_ARG } from "@kiro-learn/core/hooks";
import { resolveProject } from "@kiro-learn/core/project";
import type { Event } from "@kiro-learn/core/schemas";
import {
  fixtureText,
  runShimProcess,
  spoolFiles,
  storedEvents,
  TEST_ACTOR,
} from "../../../shims/testing.ts";
import {
  gitProject,
  installLaunchers,
  LEAP_YEAR_TITLE,
  processesWithEnv,
  projectLayouts,
  saveLeapYearMemory,
  startTestDaemon,
  waitFor,
} from "./mod.ts";

const SESSION = "3f2b8a6e-1c4d-4e9f-a7b2-5d6c8e0f1a23";

interface LauncherRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Marks the processes of one launcher run, so the run can wait for its background delivery. */
const RUN_MARK = "KIRO_LEARN_TEST_LAUNCHER_RUN";

/**
 * Runs the launcher as Claude Code does: `sh -c '<launcher> || true'`, payload on stdin; then
 * waits until every process it left (a store hook's background delivery) has ended.
 */
async function runLauncher(
  launcher: string,
  options: {
    cwd: string;
    stdin: string;
    env: Record<string, string>;
    /** The launcher's arguments (the installer gives a store hook {@linkcode STORE_ONLY_ARG}). */
    args?: string[];
    /** Writes the payload only once the launcher has exited (and its pipes closed). */
    stdinAfterExit?: boolean;
  },
): Promise<LauncherRun> {
  const mark = crypto.randomUUID();
  const args = (options.args ?? []).map((a) => ` '${a}'`).join("");
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", `'${launcher}'${args} || true`],
    cwd: options.cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      USER: TEST_ACTOR,
      ...options.env,
      [RUN_MARK]: mark,
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  let written: Promise<void> | undefined;
  const write = () =>
    written ??= writer.write(new TextEncoder().encode(options.stdin)).then(() => writer.close())
      .catch(() => {});
  // A guard against a hang, not a timing assertion (the payload then goes in, so a launcher
  // still reading it ends too, and the run fails on the killed shell's exit code).
  const guard = setTimeout(() => {
    child.kill("SIGKILL");
    write();
  }, 60_000);
  if (!options.stdinAfterExit) write();
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  clearTimeout(guard);
  if (options.stdinAfterExit) await write();
  // A hang guard, far above a delivery's own budget (curl's, then the shim's).
  await waitFor(
    () => Promise.resolve(processesWithEnv(RUN_MARK, mark).length === 0 ? true : undefined),
    { timeoutMs: 60_000, what: `the background delivery of ${launcher} to end` },
  );
  return { code: status.code, stdout, stderr };
}

function sessionEvents(events: Event[], kind: string): Event[] {
  return events.filter((e) => e.session_id === SESSION && e.kind === kind);
}

Deno.test("the Claude Code launcher's fast path and its fallbacks", async (t) => {
  await using daemon = await startTestDaemon();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  const project = await gitProject(home, "app");
  const env = { ...daemon.env, HOME: home };
  const { namespace } = resolveProject(project, { actor: TEST_ACTOR, home });
  await saveLeapYearMemory(daemon, namespace);
  const payload = (name: string, cwd = project) => fixtureText(`claude_code/${name}`, cwd);

  await t.step("fast path: no Deno runs, and it prints exactly what the shim prints", async () => {
    // A launcher whose shim cannot start: whatever it prints came over the socket.
    const noDeno = await installLaunchers(daemon, {
      home,
      denoPath: "/nonexistent/deno",
      launcher: "claude-code",
    });
    const fast = await runLauncher(noDeno, {
      cwd: project,
      stdin: payload("user_prompt_submit.json"),
      env,
    });
    assert.equal(fast.code, 0, fast.stderr);
    assert.equal(fast.stderr, "");
    assert.ok(fast.stdout.includes(LEAP_YEAR_TITLE), fast.stdout);
    // A session's first prompt leads with the session-start block (its start only stored); the
    // shim, in a session of its own, must print the same for its first prompt.
    assert.match(fast.stdout, /^## Where this project left off/);
    const other = `${SESSION}-shim`;
    const shim = await runShimProcess("claude-code", {
      settings: daemon.settings,
      env,
      cwd: project,
      stdin: payload("user_prompt_submit.json").replace(SESSION, other),
    });
    assert.equal(shim.code, 0, shim.stderr);
    assert.equal(fast.stdout, shim.stdout);
    const stored = await storedEvents(daemon);
    const [viaSocket] = sessionEvents(stored, "prompt");
    const viaShim = stored.find((e) => e.session_id === other && e.kind === "prompt")!;
    for (const key of ["namespace", "actor_id", "kind", "body"] as const) {
      assert.deepEqual(viaSocket[key], viaShim[key], key);
    }
    assert.equal(viaSocket.session_id, SESSION);
    assert.deepEqual(
      { ...viaSocket.source, version: "" },
      { ...viaShim.source, version: "" },
    );
    // An older install's tool hook stores nothing (the turn's end reads its tool use from the
    // transcript), and a turn's end whose shim cannot start still goes over the socket.
    for (const name of ["session_start.json", "post_tool_use_bash.json", "stop.json"]) {
      const cwd = `${project}/src`;
      const run = await runLauncher(noDeno, { cwd, stdin: payload(name, cwd), env });
      assert.equal(run.code, 0);
      assert.equal(run.stderr, "", name);
    }
    const latest = (await storedEvents(daemon)).slice(0, 2);
    assert.deepEqual(latest.map((e) => e.kind), ["session_summary", "note"]);
    assert.equal(sessionEvents(await storedEvents(daemon), "tool_use").length, 0);
    for (const event of latest) assert.equal(event.namespace, namespace, "filed under the root");
  });

  const launcher = await installLaunchers(daemon, { home, launcher: "claude-code" });

  await t.step(
    "a hook the installer names a store hook returns before its payload is written, in order",
    async () => {
      // Claude Code waits for the hook's exit and pipes only: with its payload still unwritten
      // the launcher has exited (a launcher that read the payload first would hang here until
      // the guard killed it), and the background then reads the payload and delivers it, over
      // the socket, with the firing key the launcher took before it returned.
      const before = await storedEvents(daemon);
      for (const name of ["session_start.json", "stop.json"]) {
        const run = await runLauncher(launcher, {
          cwd: project,
          stdin: payload(name),
          env,
          args: [STORE_ONLY_ARG],
          stdinAfterExit: true,
        });
        assert.deepEqual([run.code, run.stdout, run.stderr], [0, "", ""], name);
      }
      const added = (await storedEvents(daemon)).filter((e) =>
        !before.some((b) => b.event_id === e.event_id)
      );
      // Newest first: the Stop hook's summary (delivered by the shim, which read the transcript),
      // fired second, sorts after the session's start.
      assert.deepEqual(added.map((e) => e.kind), ["session_summary", "note"]);
      assert.ok(added[0].event_id > added[1].event_id);
      for (const event of added) assert.equal(event.namespace, namespace);
      assert.equal(spoolFiles(daemon.settings.paths.spool).length, 0);
    },
  );

  await t.step(
    "a turn's end stores the turn's tool uses from the transcript before the turn's end",
    async () => {
      // The real transcript of a turn with a failing Bash call, where Claude Code keeps it.
      const session = "228aa5cf-8c7b-444a-89bd-8cde1e864f83";
      const dir = `${home}/.claude/projects/-app`;
      await Deno.mkdir(dir, { recursive: true });
      const transcript = `${dir}/${session}.jsonl`;
      await Deno.writeTextFile(transcript, fixtureText("claude_code/transcript.jsonl", project));
      const stop = JSON.stringify({
        ...JSON.parse(payload("stop.json")),
        session_id: session,
        transcript_path: transcript,
      });
      const run = await runLauncher(launcher, {
        cwd: project,
        stdin: stop,
        env,
        args: [STORE_ONLY_ARG],
        stdinAfterExit: true,
      });
      assert.deepEqual([run.code, run.stdout, run.stderr], [0, "", ""]);
      const turn = (await storedEvents(daemon)).filter((e) => e.session_id === session);
      assert.deepEqual(turn.map((e) => e.kind), ["session_summary", "tool_use"]);
      const tool = turn[1];
      const data = tool.body.type === "json" ? tool.body.data as { failed?: boolean } : {};
      assert.equal(data.failed, true, "a failed Bash call");
      assert.equal(tool.namespace, namespace);
      assert.ok(tool.valid_time < turn[0].valid_time, "the tool ran before the turn ended");
    },
  );

  await t.step(
    "a transcript under CLAUDE_CONFIG_DIR outside $HOME is read too, and only when it is set",
    async () => {
      const config = await Deno.realPath(await Deno.makeTempDir({ prefix: "kl-claude-config-" }));
      try {
        const session = "5e9f3c1a-7b2d-4c8e-9a6f-0d1e2f3a4b5c";
        await Deno.mkdir(`${config}/projects/-app`, { recursive: true });
        const transcript = `${config}/projects/-app/${session}.jsonl`;
        await Deno.writeTextFile(
          transcript,
          fixtureText("claude_code/transcript.jsonl", project),
        );
        const stop = JSON.stringify({
          ...JSON.parse(payload("stop.json")),
          session_id: session,
          transcript_path: transcript,
        });
        const kinds = async () =>
          (await storedEvents(daemon)).filter((e) => e.session_id === session).map((e) => e.kind);
        // Not named: the shim may not read it (outside $HOME), so the turn's end alone is stored.
        await runLauncher(launcher, { cwd: project, stdin: stop, env });
        assert.deepEqual(await kinds(), ["session_summary"]);
        // Named, as Claude Code's hooks inherit it: the tool use too.
        await runLauncher(launcher, {
          cwd: project,
          stdin: stop,
          env: { ...env, CLAUDE_CONFIG_DIR: config },
        });
        assert.deepEqual((await kinds()).sort(), [
          "session_summary",
          "session_summary",
          "tool_use",
        ]);
      } finally {
        await Deno.remove(config, { recursive: true });
      }
    },
  );

  await t.step("no socket: the shim delivers over TCP", async () => {
    const before = (await storedEvents(daemon)).length;
    await Deno.rename(daemon.settings.paths.socket, `${daemon.settings.paths.socket}.away`);
    try {
      const run = await runLauncher(launcher, { cwd: project, stdin: payload("stop.json"), env });
      assert.equal(run.code, 0, run.stderr);
    } finally {
      await Deno.rename(`${daemon.settings.paths.socket}.away`, daemon.settings.paths.socket);
    }
    assert.equal((await storedEvents(daemon)).length, before + 1);
  });

  await t.step("no .git deciding the project: the shim resolves it", async () => {
    const marker = `${home}/marked`;
    await Deno.mkdir(marker);
    await Deno.writeTextFile(`${marker}/deno.json`, "{}\n");
    const run = await runLauncher(launcher, {
      cwd: marker,
      stdin: payload("stop.json", marker),
      env,
    });
    assert.equal(run.code, 0, run.stderr);
    const [latest] = await storedEvents(daemon);
    assert.equal(latest.namespace, resolveProject(marker, { actor: TEST_ACTOR, home }).namespace);
  });

  await t.step(
    "every layout files its events where the shim's project detection says",
    async () => {
      // Nested repository, a symlinked path, a git worktree (.git file), $HOME itself holding
      // .git, a .git above $HOME, a folder outside $HOME: fast where a .git folder decides, the
      // shim elsewhere, and always the namespace resolveProject gives.
      const layouts = await projectLayouts(home, project);
      // Plus a `..` in the folder: the launcher resolves it before looking for .git.
      const cases = [...layouts.cases, [`${layouts.nested}/..`, home]];
      try {
        for (const [cwd, caseHome] of cases) {
          const run = await runLauncher(launcher, {
            cwd,
            stdin: payload("stop.json", cwd),
            env: { ...env, HOME: caseHome },
          });
          assert.equal(run.code, 0, run.stderr);
          const [latest] = await storedEvents(daemon);
          const expected = resolveProject(cwd, { actor: TEST_ACTOR, home: caseHome });
          assert.equal(latest.namespace, expected.namespace, cwd);
          assert.equal(latest.source.project_path, expected.project_root, cwd);
        }
      } finally {
        await layouts.remove();
      }
    },
  );

  await t.step("an agent of kiro-learn's own is not recorded", async () => {
    const before = (await storedEvents(daemon)).length;
    const run = await runLauncher(launcher, {
      cwd: project,
      stdin: payload("stop.json"),
      env: { ...env, KIRO_LEARN_INTERNAL: "1" },
    });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, "");
    assert.equal((await storedEvents(daemon)).length, before);
  });

  await t.step(
    "a collector slow at a session's start: the startup hook's delivery still lands, no marker",
    async () => {
      assert.equal(await exists(daemon.settings.paths.unanswered), false);
      const spool = daemon.settings.paths.spool;
      const before = spoolFiles(spool).length;
      // Half a second without an answer: past a store hook's 0.3 s, within a prompt hook's 1 s.
      Deno.kill(daemon.pid(), "SIGSTOP");
      const resumed = new Promise<void>((resolve) =>
        setTimeout(() => {
          Deno.kill(daemon.pid(), "SIGCONT");
          resolve();
        }, 500)
      );
      let run: LauncherRun;
      try {
        run = await runLauncher(launcher, {
          cwd: project,
          stdin: payload("session_start.json"),
          env,
        });
      } finally {
        await resumed;
      }
      assert.equal(run.code, 0, run.stderr);
      assert.equal(spoolFiles(spool).length, before, "delivered over the socket, not spooled");
      // The session's first prompt, which carries the start block, is not told to give up.
      assert.equal(await exists(daemon.settings.paths.unanswered), false);
    },
  );

  await t.step(
    "collector hung: each hook waits only its budget, spools, and nothing doubles",
    async () => {
      const spool = daemon.settings.paths.spool;
      const before = spoolFiles(spool).length;
      const count = async (kind: string) => sessionEvents(await storedEvents(daemon), kind).length;
      const starts = async () =>
        sessionEvents(await storedEvents(daemon), "note")
          .filter((e) => e.body.type === "text" && e.body.content === "session started").length;
      const [prompts, ends, started] = [
        await count("prompt"),
        await count("session_summary"),
        await starts(),
      ];
      const turnEnd = payload("stop.json");
      Deno.kill(daemon.pid(), "SIGSTOP");
      let first: LauncherRun, second: LauncherRun, startup: LauncherRun;
      try {
        // A session's startup only stores (its first prompt carries the start block): it too
        // delivers in the background, so Claude Code does not wait for the hung collector.
        startup = await runLauncher(launcher, {
          cwd: project,
          stdin: payload("session_start.json"),
          env,
        });
        // A prompt hook, which Claude Code waits for, then a turn's end, which delivers in the
        // background (its shim's words go nowhere), both while the collector is hung.
        first = await runLauncher(launcher, {
          cwd: project,
          stdin: payload("user_prompt_submit.json"),
          env,
        });
        second = await runLauncher(launcher, { cwd: project, stdin: turnEnd, env });
      } finally {
        Deno.kill(daemon.pid(), "SIGCONT");
      }
      for (const run of [startup, first, second]) {
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, "");
      }
      assert.equal(startup.stderr, "", "the startup hook's delivery is off Claude Code's pipes");
      // Straight to the spool: the shim did not wait on the hung collector over TCP again.
      assert.match(first.stderr, /did not answer the hook's launcher within its budget; spooling/);
      assert.equal(second.stderr, "", "a background delivery says nothing on Claude Code's pipes");
      assert.equal(spoolFiles(spool).length, before + 3);
      assert.ok(await exists(daemon.settings.paths.unanswered), "the next hook is told");
      // The stalled requests were in the socket's queue: the collector may store them on waking,
      // and then the spooled copies, under the same ids, are not stored again.
      // A restart drains the spool before it listens.
      await daemon.kill();
      await daemon.restart();
      assert.equal(spoolFiles(spool).length, 0);
      assert.deepEqual(
        [await count("prompt"), await count("session_summary"), await starts()],
        [prompts + 1, ends + 1, started + 1],
      );
      // Answered again (a background delivery too): the marker goes.
      const run = await runLauncher(launcher, {
        cwd: project,
        stdin: payload("session_start.json"),
        env,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(await exists(daemon.settings.paths.unanswered), false);
    },
  );

  await t.step("collector killed (a stale socket file, then none): the shim spools", async () => {
    const spool = daemon.settings.paths.spool;
    await daemon.kill();
    assert.ok(await exists(daemon.settings.paths.socket), "a killed collector leaves its socket");
    const run = await runLauncher(launcher, { cwd: project, stdin: payload("stop.json"), env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "");
    assert.equal(spoolFiles(spool).length, 1);
    // No socket at all: the shim alone, in the background, spools too.
    await Deno.remove(daemon.settings.paths.socket);
    const start = await runLauncher(launcher, {
      cwd: project,
      stdin: payload("session_start.json"),
      env,
    });
    assert.deepEqual([start.code, start.stdout, start.stderr], [0, "", ""]);
    assert.equal(spoolFiles(spool).length, 2);
    await daemon.restart();
  });

  await Deno.remove(home, { recursive: true });
});

function exists(path: string): Promise<boolean> {
  return Deno.lstat(path).then(() => true, () => false);
}

/** One JSON-payload agent besides Claude Code, as its launcher test drives it. */
interface AgentCase {
  surface: "codex" | "gemini-cli";
  session: string;
  /** Its prompt hook's payload (it retrieves). */
  prompt: string;
  /** What its hook prints when it has nothing to say. */
  silent: string;
  /** A hook the launcher must answer at once, recording nothing. */
  ignored: string;
}

Deno.test("the Codex CLI and Gemini CLI launchers' fast paths and their fallbacks", async (t) => {
  await using daemon = await startTestDaemon();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  const project = await gitProject(home, "app");
  const env = { ...daemon.env, HOME: home };
  const { namespace } = resolveProject(project, { actor: TEST_ACTOR, home });
  await saveLeapYearMemory(daemon, namespace);
  const text = (name: string) => fixtureText(name, project);
  const cases: AgentCase[] = [
    {
      surface: "codex",
      session: "01a22530-efd8-78c0-b93d-ca2583dd324e",
      prompt: text("codex/user_prompt_submit.json"),
      silent: "",
      ignored: text("codex/post_tool_use.json"),
    },
    {
      surface: "gemini-cli",
      session: "825e0459-10db-4700-92ac-5e950123b5cd",
      prompt: text("gemini_cli/before_agent.json"),
      silent: "{}\n",
      ignored: JSON.stringify({
        ...JSON.parse(text("gemini_cli/before_agent.json")),
        hook_event_name: "BeforeTool",
        tool_name: "run_shell_command",
      }),
    },
  ];
  const ofSession = async (session: string) =>
    (await storedEvents(daemon)).filter((e) => e.session_id === session);
  const hookCount = async () =>
    (await (await daemon.fetch("/v1/stats")).json()).latency.hook.count as number;

  for (const agent of cases) {
    await t.step(
      `${agent.surface}: the prompt's answer comes over the socket, no Deno`,
      async () => {
        const noDeno = await installLaunchers(daemon, {
          home,
          denoPath: "/nonexistent/deno",
          launcher: agent.surface,
        });
        const hooks = await hookCount();
        const fast = await runLauncher(noDeno, { cwd: project, stdin: agent.prompt, env });
        assert.deepEqual([fast.code, fast.stderr], [0, ""]);
        assert.ok(fast.stdout.includes(LEAP_YEAR_TITLE), fast.stdout);
        assert.equal(await hookCount(), hooks + 1, "the agent's route answered");
        // Exactly what the shim prints for the same prompt in a session of its own.
        const other = `${agent.session}-shim`;
        const shim = await runShimProcess(agent.surface, {
          settings: daemon.settings,
          env,
          cwd: project,
          stdin: agent.prompt.replace(agent.session, other),
        });
        assert.equal(shim.code, 0, shim.stderr);
        assert.equal(fast.stdout, shim.stdout);
        if (agent.surface === "gemini-cli") {
          const printed = JSON.parse(fast.stdout);
          assert.equal(printed.hookSpecificOutput.hookEventName, "BeforeAgent");
          assert.ok(printed.hookSpecificOutput.additionalContext.includes(LEAP_YEAR_TITLE));
        }
        const [viaSocket] = (await ofSession(agent.session)).filter((e) => e.kind === "prompt");
        const [viaShim] = (await ofSession(other)).filter((e) => e.kind === "prompt");
        for (const key of ["namespace", "actor_id", "kind", "body"] as const) {
          assert.deepEqual(viaSocket[key], viaShim[key], key);
        }
        assert.equal(viaSocket.source.surface, agent.surface);
        // A hook that records nothing answers at once, what the agent accepts, and stores nothing.
        const before = (await storedEvents(daemon)).length;
        const ignored = await runLauncher(noDeno, { cwd: project, stdin: agent.ignored, env });
        assert.deepEqual([ignored.code, ignored.stdout, ignored.stderr], [0, agent.silent, ""]);
        assert.equal((await storedEvents(daemon)).length, before);
        assert.equal(await hookCount(), hooks + 1, "an ignored hook never reaches the collector");
      },
    );
  }

  await t.step(
    "gemini-cli: the turn's end stores the chat file's failing call, once; AfterTool stores nothing",
    async () => {
      // An older install's AfterTool hook answers at once and stores nothing: the turn's end
      // reads the turn's tool uses from the session's chat file, where Gemini CLI keeps it.
      const launcher = await installLaunchers(daemon, { home, launcher: "gemini-cli" });
      const before = (await storedEvents(daemon)).length;
      const tool = await runLauncher(launcher, {
        cwd: project,
        stdin: text("gemini_cli/after_tool_failed_shell.json"),
        env,
      });
      assert.deepEqual([tool.code, tool.stdout, tool.stderr], [0, "{}\n", ""]);
      assert.equal((await storedEvents(daemon)).length, before);
      const chat = `${home}/.gemini/tmp/app/chats/session-2026-11-29T04-49-4980ce21.jsonl`;
      await Deno.mkdir(`${home}/.gemini/tmp/app/chats`, { recursive: true });
      await Deno.writeTextFile(chat, text("gemini_cli/chat.jsonl"));
      const end = JSON.stringify({
        ...JSON.parse(text("gemini_cli/after_agent.json")),
        transcript_path: chat,
      });
      // Twice (two turn ends read the same turn): each turn end is stored, the tool use once.
      for (let i = 0; i < 2; i++) {
        const run = await runLauncher(launcher, { cwd: project, stdin: end, env });
        assert.deepEqual([run.code, run.stdout, run.stderr], [0, "{}\n", ""]);
      }
      const turn = await ofSession(cases[1].session);
      assert.deepEqual(turn.map((e) => e.kind).sort(), [
        "prompt",
        "session_summary",
        "session_summary",
        "tool_use",
      ]);
      const used = turn.find((e) => e.kind === "tool_use")!;
      const data = used.body.type === "json"
        ? used.body.data as { failed?: boolean; tool_name?: string }
        : {};
      assert.deepEqual([data.tool_name, data.failed], ["run_shell_command", true]);
      for (const event of turn) assert.equal(event.namespace, namespace);
    },
  );

  await t.step(
    "codex: the turn's end stores the rollout's failing call, then the answer",
    async () => {
      const dir = `${project}/.home/.codex/sessions/2026/11/29`;
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(`${dir}/rollout.jsonl`, text("codex/rollout.jsonl"));
      const launcher = await installLaunchers(daemon, { home, launcher: "codex" });
      const run = await runLauncher(launcher, {
        cwd: project,
        stdin: text("codex/stop.json"),
        env,
      });
      assert.deepEqual([run.code, run.stdout, run.stderr], [0, "", ""]);
      const turn = await ofSession(cases[0].session);
      // The rollout's own clock dates the tool use: compare the kinds, not their order.
      assert.deepEqual(turn.map((e) => e.kind).sort(), ["prompt", "session_summary", "tool_use"]);
      const used = turn.find((e) => e.kind === "tool_use")!;
      const tool = used.body.type === "json" ? used.body.data as { failed?: boolean } : {};
      assert.equal(tool.failed, true, "the rollout's exit code flags `false`");
      for (const event of turn) assert.equal(event.namespace, namespace);
    },
  );

  const launchers = {
    codex: await installLaunchers(daemon, { home, launcher: "codex" }),
    "gemini-cli": await installLaunchers(daemon, { home, launcher: "gemini-cli" }),
  };
  const prompts = async () =>
    (await storedEvents(daemon)).filter((e) => e.kind === "prompt" && e.body.type === "text")
      .length;

  await t.step(
    "collector hung: the prompt hook waits its budget, spools, nothing doubles",
    async () => {
      const spool = daemon.settings.paths.spool;
      const before = await prompts();
      Deno.kill(daemon.pid(), "SIGSTOP");
      const runs: LauncherRun[] = [];
      try {
        for (const agent of cases) {
          runs.push(
            await runLauncher(launchers[agent.surface], {
              cwd: project,
              stdin: agent.prompt.replace(agent.session, `${agent.session}-hung`),
              env,
            }),
          );
        }
      } finally {
        Deno.kill(daemon.pid(), "SIGCONT");
      }
      for (const [i, run] of runs.entries()) {
        assert.equal(run.code, 0, run.stderr);
        // Gemini CLI still gets one JSON object; both are told nothing, in their own format.
        assert.equal(run.stdout, cases[i].silent);
      }
      assert.ok(await exists(daemon.settings.paths.unanswered), "the next hook is told");
      assert.equal(spoolFiles(spool).length, 2);
      await daemon.kill();
      await daemon.restart();
      assert.equal(spoolFiles(spool).length, 0);
      assert.equal(await prompts(), before + 2, "each prompt stored once");
    },
  );

  await t.step(
    "a turn's end clears a hung collector's marker once it answers again: prompts wait again",
    async () => {
      // Codex and Gemini CLI fire no hook but the prompt's and the turn end's, which goes to the
      // shim: without the turn end's check, every prompt would spool without its memory until
      // the collector restarts.
      for (
        const [agent, end] of [
          [cases[0], text("codex/stop.json")],
          [cases[1], text("gemini_cli/after_agent.json")],
        ] as const
      ) {
        await Deno.writeTextFile(daemon.settings.paths.unanswered, "");
        const run = await runLauncher(launchers[agent.surface], { cwd: project, stdin: end, env });
        assert.deepEqual([run.code, run.stdout, run.stderr], [0, agent.silent, ""]);
        assert.equal(await exists(daemon.settings.paths.unanswered), false, agent.surface);
      }
    },
  );

  await t.step(
    "collector killed: the shim spools, and the restart delivers each once",
    async () => {
      const spool = daemon.settings.paths.spool;
      const before = await prompts();
      await daemon.kill();
      for (const agent of cases) {
        const run = await runLauncher(launchers[agent.surface], {
          cwd: project,
          stdin: agent.prompt.replace(agent.session, `${agent.session}-down`),
          env,
        });
        assert.equal(run.code, 0, run.stderr);
        if (agent.surface === "gemini-cli") JSON.parse(run.stdout);
      }
      assert.equal(spoolFiles(spool).length, 2);
      await daemon.restart();
      assert.equal(spoolFiles(spool).length, 0);
      assert.equal(await prompts(), before + 2);
    },
  );

  await Deno.remove(home, { recursive: true });
});

Deno.test("the Copilot CLI launcher's fast path and its fallbacks", async (t) => {
  await using daemon = await startTestDaemon();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  const project = await gitProject(home, "app");
  const env = { ...daemon.env, HOME: home };
  const { namespace } = resolveProject(project, { actor: TEST_ACTOR, home });
  await saveLeapYearMemory(daemon, namespace);
  const session = "3474568a-3e76-4627-8796-504897f5662c";
  const text = (name: string) => fixtureText(`copilot_cli/${name}`, project);
  const ofSession = async (id: string) =>
    (await storedEvents(daemon)).filter((e) => e.session_id === id);
  const hookCount = async () =>
    (await (await daemon.fetch("/v1/stats")).json()).latency.hook.count as number;
  // Copilot CLI's payloads name no event: the installed hook command names it, the first argument.
  const noDeno = await installLaunchers(daemon, {
    home,
    denoPath: "/nonexistent/deno",
    launcher: "copilot-cli",
  });

  await t.step(
    "userPromptSubmitted: answered over the socket, no Deno, as the shim prints",
    async () => {
      const hooks = await hookCount();
      const fast = await runLauncher(noDeno, {
        cwd: project,
        stdin: text("user_prompt_submitted.json"),
        env,
        args: ["userPromptSubmitted"],
      });
      assert.deepEqual([fast.code, fast.stderr], [0, ""]);
      const printed = JSON.parse(fast.stdout);
      assert.deepEqual(Object.keys(printed), ["additionalContext"]);
      assert.ok(printed.additionalContext.includes(LEAP_YEAR_TITLE), fast.stdout);
      assert.equal(await hookCount(), hooks + 1, "Copilot's route answered");
      const other = `${session.slice(0, -4)}0000`;
      const shim = await runShimProcess("copilot-cli", {
        settings: daemon.settings,
        env,
        cwd: project,
        args: ["userPromptSubmitted"],
        stdin: text("user_prompt_submitted.json").replace(session, other),
      });
      assert.equal(shim.code, 0, shim.stderr);
      assert.equal(fast.stdout, shim.stdout);
      const [viaSocket] = (await ofSession(session)).filter((e) => e.kind === "prompt");
      const [viaShim] = (await ofSession(other)).filter((e) => e.kind === "prompt");
      for (const key of ["namespace", "actor_id", "kind", "body"] as const) {
        assert.deepEqual(viaSocket[key], viaShim[key], key);
      }
      assert.equal(viaSocket.source.surface, "copilot-cli");
    },
  );

  await t.step("postToolUse and preToolUse answer {} at once and store nothing", async () => {
    // The turn's end reads the tool uses from the transcript: an older install's tool hooks
    // still fire until it runs again, and record nothing.
    const hooks = await hookCount();
    const before = (await storedEvents(daemon)).length;
    for (const event of ["postToolUse", "preToolUse"]) {
      const run = await runLauncher(noDeno, {
        cwd: project,
        stdin: text("post_tool_use_failed_shell.json"),
        env,
        args: [event],
        stdinAfterExit: true,
      });
      assert.deepEqual([run.code, run.stdout, run.stderr], [0, "{}\n", ""], event);
    }
    assert.equal((await storedEvents(daemon)).length, before);
    assert.equal(await hookCount(), hooks, "an ignored hook never reaches the collector");
  });

  await t.step(
    "agentStop: the shim reads the turn's tool uses and answer from the transcript",
    async () => {
      const launcher = await installLaunchers(daemon, { home, launcher: "copilot-cli" });
      const transcript = `${home}/.copilot/session-state/${session}/events.jsonl`;
      await Deno.mkdir(`${home}/.copilot/session-state/${session}`, { recursive: true });
      await Deno.writeTextFile(transcript, text("turn_tools.jsonl"));
      const run = await runLauncher(launcher, {
        cwd: project,
        stdin: text("agent_stop.json").replace("${HOME}", home),
        env,
        args: ["agentStop"],
      });
      assert.deepEqual([run.code, run.stdout, run.stderr], [0, "{}\n", ""]);
      const [summary] = (await ofSession(session)).filter((e) => e.kind === "session_summary");
      assert.ok(summary.body.type === "text" && summary.body.content !== "", "the turn's answer");
      assert.equal(summary.namespace, namespace);
      // The turn's three calls, the failing listing and the missing path flagged.
      const used = (await ofSession(session)).filter((e) => e.kind === "tool_use")
        .map((e) => e.body.type === "json" ? e.body.data as Record<string, unknown> : {});
      assert.deepEqual(used.map((d) => [d.tool_name, d.failed ?? false]).sort(), [
        ["bash", false],
        ["bash", true],
        ["view", true],
      ]);
      for (const event of await ofSession(session)) assert.equal(event.namespace, namespace);
    },
  );

  await t.step(
    "collector killed: the shim spools under the same event, delivered once",
    async () => {
      const launcher = await installLaunchers(daemon, { home, launcher: "copilot-cli" });
      const spool = daemon.settings.paths.spool;
      const down = `${session.slice(0, -4)}dddd`;
      await daemon.kill();
      const run = await runLauncher(launcher, {
        cwd: project,
        stdin: text("user_prompt_submitted.json").replace(session, down),
        env,
        args: ["userPromptSubmitted"],
      });
      assert.equal(run.code, 0, run.stderr);
      JSON.parse(run.stdout);
      assert.equal(spoolFiles(spool).length, 1);
      await daemon.restart();
      assert.equal(spoolFiles(spool).length, 0);
      assert.equal((await ofSession(down)).filter((e) => e.kind === "prompt").length, 1);
    },
  );

  await Deno.remove(home, { recursive: true });
});
