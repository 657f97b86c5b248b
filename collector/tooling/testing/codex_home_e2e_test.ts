// The real Codex CLI with its home moved by CODEX_HOME (outside HOME), and with kiro-learn's hooks
// at project scope: install, doctor and uninstall find Codex's files where Codex reads them, and
// the hooks (and the rollout the turn's end reads) work there.
import assert from "node:assert/strict";
import { ROUTES } from "@kiro-learn/core/api/wire";
import { resolveProject } from "@kiro-learn/core/project";
import {
  callsThenText,
  claudeSandbox,
  outputText,
  startScriptedResponsesModel,
  waitFor,
} from "./mod.ts";

const ANSWER = "The check failed: false always exits 1.";

interface StoredEvent {
  kind: string;
  namespace: string;
  body: { content?: string; data?: Record<string, unknown> };
  source: { surface: string };
}

/** The sandbox's collector's events of `namespace`. */
async function eventsOf(
  box: { dataDir: string; port: number },
  namespace: string,
): Promise<StoredEvent[]> {
  const token = (await Deno.readTextFile(`${box.dataDir}/token`)).trim();
  const res = await fetch(`http://127.0.0.1:${box.port}${ROUTES.events}?limit=200`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await res.json()).items as StoredEvent[]).filter((e) => e.namespace === namespace);
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("Codex CLI (real client) with CODEX_HOME outside HOME: install, the session's events (its rollout read there), doctor and uninstall all use it", async () => {
  await using box = await claudeSandbox();
  await using model = startScriptedResponsesModel(callsThenText([
    { type: "call", name: "exec_command", arguments: { cmd: "false" } },
  ], ANSWER));
  const codexHome = `${box.root}/codex-home`;
  await Deno.mkdir(codexHome);
  const original = '# mine\nmodel = "o3"\n';
  await Deno.writeTextFile(`${codexHome}/config.toml`, original);
  // Every process of the sandbox (the CLI, the client, its hooks) sees it, as in a user's shell.
  box.env.CODEX_HOME = codexHome;
  const alpha = await box.project("alpha");

  const installed = await box.kiroLearn(["install", "--agents", "codex"], alpha);
  assert.equal(installed.code, 0, outputText(installed));
  assert.ok(exists(`${codexHome}/hooks.json`), outputText(installed));
  assert.match(await Deno.readTextFile(`${codexHome}/config.toml`), /trusted_hash/);
  assert.ok(!exists(`${box.home}/.codex`), "nothing in ~/.codex");
  const started = await box.kiroLearn(["start"], alpha);
  assert.equal(started.code, 0, outputText(started));

  const run = await box.codex("Run the check script and tell me why it fails", {
    cwd: alpha,
    modelUrl: model.url,
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stderr, /hook: Stop Completed/);
  assert.ok(
    [...Deno.readDirSync(`${codexHome}/sessions`)].length > 0,
    "Codex keeps its rollouts in CODEX_HOME",
  );
  const namespace = resolveProject(alpha, { actor: box.actor, home: box.home }).namespace;
  const events = await waitFor(async () => {
    const ours = await eventsOf(box, namespace);
    return ours.some((e) => e.kind === "session_summary") ? ours : undefined;
  }, { timeoutMs: 60_000, what: "the turn's end in the collector" });
  // The failed shell call comes from the rollout under CODEX_HOME, which the hook may read.
  assert.deepEqual(events.map((e) => e.kind).sort(), ["prompt", "session_summary", "tool_use"]);
  const tool = events.find((e) => e.kind === "tool_use")!.body.data!;
  assert.equal(tool.failed, true, JSON.stringify(tool));

  const doctor = await box.kiroLearn(["doctor"], alpha);
  assert.match(outputText(doctor), /codex hook trust.*trusted in .*codex-home\/config\.toml/);

  const removed = await box.kiroLearn(["uninstall", "--all"], alpha);
  assert.equal(removed.code, 0, outputText(removed));
  assert.equal(await Deno.readTextFile(`${codexHome}/config.toml`), original);
  assert.ok(!exists(`${codexHome}/hooks.json`), outputText(removed));
});

Deno.test("Codex CLI (real client): install --scope project writes <project>/.codex/hooks.json, which Codex runs once the project is trusted", async () => {
  await using box = await claudeSandbox();
  await using model = startScriptedResponsesModel(callsThenText([], ANSWER));
  const alpha = await box.project("alpha");
  const installed = await box.kiroLearn(
    ["install", "--agents", "codex", "--scope", "project"],
    alpha,
  );
  assert.equal(installed.code, 0, outputText(installed));
  assert.ok(exists(`${alpha}/.codex/hooks.json`), outputText(installed));
  assert.ok(!exists(`${box.home}/.codex/hooks.json`), "no user-scope hooks");
  const started = await box.kiroLearn(["start"], alpha);
  assert.equal(started.code, 0, outputText(started));
  const namespace = resolveProject(alpha, { actor: box.actor, home: box.home }).namespace;
  const ask = () =>
    box.codex("Run the check script and tell me why it fails", { cwd: alpha, modelUrl: model.url });

  // Not trusted yet: Codex skips the project's hooks, and doctor says why.
  const untrusted = await ask();
  assert.equal(untrusted.code, 0, untrusted.stdout + untrusted.stderr);
  assert.doesNotMatch(untrusted.stderr, /hook: UserPromptSubmit/);
  assert.deepEqual(await eventsOf(box, namespace), []);
  const warned = await box.kiroLearn(["doctor"], alpha);
  assert.match(outputText(warned), /codex project hook trust.*only in a project you trusted/);

  // Trusted as Codex records it: the hooks run.
  const config = `${box.home}/.codex/config.toml`;
  await Deno.writeTextFile(
    config,
    `${await Deno.readTextFile(config)}\n[projects.${
      JSON.stringify(alpha)
    }]\ntrust_level = "trusted"\n`,
  );
  const trusted = await ask();
  assert.equal(trusted.code, 0, trusted.stdout + trusted.stderr);
  assert.match(trusted.stderr, /hook: UserPromptSubmit Completed/);
  const events = await waitFor(async () => {
    const ours = await eventsOf(box, namespace);
    return ours.some((e) => e.kind === "session_summary") ? ours : undefined;
  }, { timeoutMs: 60_000, what: "the trusted session's turn end" });
  assert.deepEqual(events.map((e) => e.kind).sort(), ["prompt", "session_summary"]);
  assert.ok(events.every((e) => e.source.surface === "codex"));
  const doctor = await box.kiroLearn(["doctor"], alpha);
  assert.match(outputText(doctor), /codex project hook trust.*trusted in/);

  const removed = await box.kiroLearn(["uninstall"], alpha);
  assert.equal(removed.code, 0, outputText(removed));
  assert.ok(!exists(`${alpha}/.codex`), outputText(removed));
});
