// `kiro-learn status` against a real collector whose agent fails.
import assert from "node:assert/strict";
import { TURN_TOOLS_ARG } from "@kiro-learn/core/hooks";
import { spoolEvent } from "@kiro-learn/core/spool";
import { makeEvent, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { fixtureText, makeProject, runShimProcess, spoolFiles } from "../tooling/testing/mod.ts";
import {
  postJson,
  startTestDaemon,
  startTestDaemonWithFailingAgent,
} from "../tooling/testing/mod.ts";
import { doctor } from "./installer/mod.ts";
import { status } from "./status.ts";

const PROJECT = TEST_NAMESPACE.split("/")[4];

Deno.test("status shows an open extraction breaker, the last error and the next attempt", async () => {
  await using daemon = await startTestDaemonWithFailingAgent();
  const event = makeEvent({ kind: "prompt", body: { type: "text", content: "fix the build" } });
  await postJson(daemon, "/v1/events", event).then((r) => r.body?.cancel());
  const flushed = await daemon.fetch(`/v1/extraction/flush?project_id=${PROJECT}`, {
    method: "POST",
  });
  await flushed.body?.cancel();

  const lines: string[] = [];
  assert.equal(await status(daemon.settings, { print: (l) => lines.push(l) }), true);
  const line = lines.find((l) => l.startsWith("extraction ") && l.includes("breaker"));
  assert.ok(line, lines.join("\n"));
  assert.match(line, /breaker open \(1 failure in a row\)/);
  assert.match(line, /last run failed at \S+: extraction failed after 1 attempts: garbage reply/);
  const next = line.match(/next attempt at (\S+)$/)?.[1];
  assert.ok(next, line);
  // The attempt after the cool-down: about ten minutes from now, never in the past.
  assert.ok(Date.parse(next) > Date.now() + 500_000, next);

  const json: string[] = [];
  await status(daemon.settings, { print: (l) => json.push(l), json: true });
  const parsed = JSON.parse(json.join("\n"));
  const project = Object.entries(parsed).find(([k]) => k.startsWith("extraction "))?.[1] as {
    breaker: string;
    last_run: { ok: boolean; error: string };
    next_attempt_at: string;
  };
  assert.equal(project.breaker, "open");
  assert.equal(project.last_run.ok, false);
  assert.match(project.last_run.error, /garbage reply/);
  assert.equal(project.next_attempt_at, next);
});

Deno.test("status and doctor agree on the spool: a hook's transcript read marks are not spooled events", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  try {
    // Claude Code's Stop hook with the real transcript of a turn, where Claude Code keeps it
    // (its config dir, here inside a folder the test shim may read): the shim delivers the
    // turn's tool uses and keeps its read marks in the spool dir.
    const session = "228aa5cf-8c7b-444a-89bd-8cde1e864f83";
    const config = `${project}/.claude-config`;
    const dir = `${config}/projects/-app`;
    await Deno.mkdir(dir, { recursive: true });
    const transcript = `${dir}/${session}.jsonl`;
    await Deno.writeTextFile(transcript, fixtureText("claude_code/transcript.jsonl", project));
    const stop = JSON.stringify({
      ...JSON.parse(fixtureText("claude_code/stop.json", project)),
      session_id: session,
      transcript_path: transcript,
    });
    const hook = await runShimProcess("claude-code", {
      settings: daemon.settings,
      env: { ...daemon.env, CLAUDE_CONFIG_DIR: config },
      cwd: project,
      stdin: stop,
      args: [TURN_TOOLS_ARG],
    });
    assert.equal(hook.code, 0, hook.stderr);
    const kept = [...walk(daemon.settings.paths.spool)];
    assert.ok(kept.length >= 1, `the hook kept its read marks in the spool dir: ${hook.stderr}`);
    assert.deepEqual(spoolFiles(daemon.settings.paths.spool), [], "and spooled nothing");

    const lines: string[] = [];
    assert.equal(await status(daemon.settings, { print: (l) => lines.push(l) }), true);
    assert.match(lines.find((l) => l.startsWith("spool"))!, /^spool: 0 events/);
    const report = await doctor({
      home,
      projectDir: project,
      dataDir: daemon.dataDir,
      env: { PATH: "" },
      print: () => {},
    });
    const spool = report.checks.find((c) => c.name === "spool")!;
    assert.deepEqual([spool.status, spool.message], ["ok", "empty"], kept.join(", "));

    // A spooled event is counted by both, the same way.
    assert.equal(
      spoolEvent(makeEvent({ kind: "note" }), {
        spoolDir: daemon.settings.paths.spool,
        maxBytes: daemon.settings.spool.maxBytes,
      }).spooled,
      true,
    );
    const again: string[] = [];
    await status(daemon.settings, { print: (l) => again.push(l) });
    const counted = (await doctor({
      home,
      projectDir: project,
      dataDir: daemon.dataDir,
      env: { PATH: "" },
      print: () => {},
    })).checks.find((c) => c.name === "spool")!;
    // The collector may drain it at any moment: both say one event, or both say none.
    const byStatus = Number(again.find((l) => l.startsWith("spool"))!.match(/(\d+) events/)![1]);
    assert.ok(byStatus <= 1);
    assert.match(counted.message, /^(empty|1 event\(s\), .* waiting for the collector)$/);
  } finally {
    await Deno.remove(project, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

function* walk(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else yield path;
  }
}

Deno.test("status names the agents whose events it holds: Codex CLI, Gemini CLI and Copilot CLI among them", async () => {
  await using daemon = await startTestDaemon();
  const lines: string[] = [];
  await status(daemon.settings, { print: (l) => lines.push(l) });
  assert.ok(lines.includes("agents: none yet"), lines.join("\n"));
  const from = (surface: "claude-code" | "codex" | "gemini-cli" | "copilot-cli") =>
    makeEvent({ source: { surface, version: "1", client_id: "host", project_path: "/tmp/p" } });
  const events = [
    from("gemini-cli"),
    from("claude-code"),
    from("gemini-cli"),
    from("codex"),
    from("copilot-cli"),
    from("copilot-cli"),
    from("copilot-cli"),
  ];
  for (const event of events) {
    const res = await postJson(daemon, "/v1/events", event);
    assert.ok(res.ok, await res.text());
  }
  lines.length = 0;
  await status(daemon.settings, { print: (l) => lines.push(l) });
  assert.ok(
    lines.includes(
      "agents: claude-code 1 event(s), codex 1 event(s), copilot-cli 3 event(s), " +
        "gemini-cli 2 event(s)",
    ),
    lines.join("\n"),
  );
  const json: string[] = [];
  await status(daemon.settings, { print: (l) => json.push(l), json: true });
  assert.deepEqual(JSON.parse(json.join("\n")).agents, {
    "claude-code": 1,
    codex: 1,
    "copilot-cli": 3,
    "gemini-cli": 2,
  });
});
