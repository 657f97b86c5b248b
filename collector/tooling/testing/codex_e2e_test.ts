// The real Codex CLI, offline against a scripted Responses model, with kiro-learn installed by its
// own installer and a real collector: what the hooks record, what memory reaches the model, and
// that a project's memory is one, whichever agent wrote it (the real Claude Code in the same HOME).
import assert from "node:assert/strict";
import { ROUTES } from "@kiro-learn/core/api/wire";
import { makeRecord } from "@kiro-learn/core/testing";
import {
  callsThenText,
  claudeSandbox,
  outputText,
  responsesRequestText,
  startScriptedModel,
  startScriptedResponsesModel,
  toolThenText,
  waitFor,
} from "./mod.ts";
import { sessionWhileDown } from "./_collector_down.ts";

const SAVED_TITLE = "Leap-year date parser fix";
const CLAUDE_TITLE = "Invoice totals round half to even";
const ANSWER = "The check failed: false always exits 1.";

Deno.test("Codex CLI (real client): a session is recorded once, its saved memory reaches the next session, and a project's memory is shared with Claude Code", async () => {
  await using box = await claudeSandbox();
  // Session 1: a failing shell command, then a memory saved through kiro-learn's MCP tool (Codex
  // offers an MCP server's tools in a namespace), then the answer.
  await using model = startScriptedResponsesModel(callsThenText([
    { type: "call", name: "exec_command", arguments: { cmd: "false" } },
    {
      type: "call",
      namespace: "mcp__kiro_learn_memory",
      name: "save_observation",
      arguments: {
        title: SAVED_TITLE,
        summary: "The date parser check fails on leap years because February has 29 days.",
        observation_type: "discovery",
        concepts: ["date parser", "leap year"],
      },
    },
  ], ANSWER));
  const alpha = await box.project("alpha");
  const beta = await box.project("beta");

  const installed = await box.installAndStart(alpha);
  assert.match(installed, /add Codex CLI hooks \(UserPromptSubmit, Stop\)/);
  assert.match(installed, /config\.toml: add Codex CLI MCP server and hook trust/);
  // The MCP entry is the collector's route over HTTP, its token from the headers helper: no
  // server process per session, and no token in the file.
  const config = await Deno.readTextFile(`${box.home}/.codex/config.toml`);
  assert.ok(
    config.includes(`url = "http://127.0.0.1:${box.port}${ROUTES.mcp}"`) &&
      /http_headers_helper = "cd \/ && exec .*mcp-headers/.test(config) &&
      !config.includes("mcp-server"),
    config,
  );
  const token = (await Deno.readTextFile(`${box.dataDir}/token`)).trim();
  const alphaNs = box.namespaceOf(alpha);

  const first = await box.codex("Run the check script and tell me why it fails", {
    cwd: alpha,
    modelUrl: model.url,
  });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.equal(first.stdout.trim(), ANSWER);
  // The hooks ran (trusted by install's trust entries: an untrusted hook is skipped silently).
  assert.match(first.stderr, /hook: UserPromptSubmit Completed/);
  assert.match(first.stderr, /hook: Stop Completed/);
  assert.match(first.stderr, /mcp: kiro-learn-memory\/save_observation \(completed\)/);
  assert.ok(!config.includes(token), "the token stays out of config.toml");
  const events = await waitFor(async () => {
    const ours = await box.eventsIn(alphaNs);
    return ours.some((e) => e.kind === "session_summary") ? ours : undefined;
  }, { timeoutMs: 60_000, what: "session 1's turn end in the collector" });
  const kinds = events.map((e) => e.kind).sort();
  // One prompt, one tool use (the shell call; kiro-learn's own MCP tool is not recorded), one
  // turn's end: each exactly once.
  assert.deepEqual(kinds, ["prompt", "session_summary", "tool_use"], JSON.stringify(events));
  assert.ok(events.every((e) => e.source.surface === "codex"), JSON.stringify(events));
  assert.ok(events.every((e) => e.source.project_path === alpha));
  assert.equal(new Set(events.map((e) => e.session_id)).size, 1, "one session id");
  assert.equal(
    events.find((e) => e.kind === "prompt")!.body.content,
    "Run the check script and tell me why it fails",
  );
  const tool = events.find((e) => e.kind === "tool_use")!.body.data!;
  assert.equal(tool.tool_name, "Bash");
  assert.deepEqual(tool.tool_input, { command: "false" });
  assert.equal(tool.failed, true, "`false` exits 1: the rollout's exit code must flag it");
  assert.equal(events.find((e) => e.kind === "session_summary")!.body.content, ANSWER);
  // The prompt hook took the fast path: Codex's route answered it (no Deno shim, which posts to
  // the events route), once; the turn's end went to the shim, which read the rollout.
  const stats = await (await box.api(ROUTES.stats)).json();
  assert.equal(stats.latency.hook.count, 1, `fast-path hooks: ${JSON.stringify(stats.latency)}`);

  // Session 2 in alpha: the memory session 1 saved reaches the model, once.
  const question = "Why does the date parser check fail on leap years?";
  model.setScript(callsThenText([], "Because of February 29."));
  const seen = model.requests.length;
  const second = await box.codex(question, { cwd: alpha, modelUrl: model.url });
  assert.equal(second.code, 0, second.stdout + second.stderr);
  const secondRequests = model.requests.slice(seen).filter((r) => r.body !== null);
  assert.ok(secondRequests.length > 0, "session 2 reached the model");
  const injected = responsesRequestText(secondRequests[0].body);
  assert.ok(
    injected.includes(SAVED_TITLE),
    `session 2's first model request lacks the memory "${SAVED_TITLE}": the hook's context did ` +
      `not reach the model. Request: ${injected.slice(-4000)}`,
  );
  assert.equal(injected.split(SAVED_TITLE).length - 1, 1, "the memory appears exactly once");

  // The real Claude Code in the same project: its events are filed in the same project as
  // Codex's, and a memory saved for that project (as Claude Code's MCP tool saves it) reaches
  // Codex.
  await using claudeModel = startScriptedModel(
    toolThenText({ name: "Bash", input: { command: "true", description: "Check" } }, "Done."),
  );
  const claude = await box.claude("Check the invoices", { cwd: alpha, modelUrl: claudeModel.url });
  assert.equal(claude.code, 0, claude.stdout + claude.stderr);
  await waitFor(async () => {
    const ours = await box.eventsIn(alphaNs);
    return ours.some((e) => e.source.surface === "claude-code" && e.kind === "session_summary")
      ? true
      : undefined;
  }, { timeoutMs: 60_000, what: "Claude Code's turn end in alpha's project" });
  const record = makeRecord({
    namespace: alphaNs,
    title: CLAUDE_TITLE,
    summary: "Invoice totals use banker's rounding (round half to even), never half up.",
    concepts: ["invoice", "rounding"],
  });
  const saved = await box.api(ROUTES.memories, { method: "POST", body: JSON.stringify(record) });
  assert.ok(saved.ok, await saved.text());
  const seenClaude = model.requests.length;
  const third = await box.codex("How are invoice totals rounded?", {
    cwd: alpha,
    modelUrl: model.url,
  });
  assert.equal(third.code, 0, third.stdout + third.stderr);
  const thirdText = model.requests.slice(seenClaude).filter((r) => r.body !== null)
    .map((r) => responsesRequestText(r.body)).join("\n");
  assert.ok(thirdText.includes(CLAUDE_TITLE), "the project's memory reached Codex");

  // Beta: the same question, none of alpha's memory.
  const seenAlpha = model.requests.length;
  const fourth = await box.codex(question, { cwd: beta, modelUrl: model.url });
  assert.equal(fourth.code, 0, fourth.stdout + fourth.stderr);
  const fourthRequests = model.requests.slice(seenAlpha).filter((r) => r.body !== null);
  assert.ok(fourthRequests.length > 0, "the beta session reached the model");
  for (const request of fourthRequests) {
    const text = responsesRequestText(request.body);
    assert.ok(
      !text.includes(SAVED_TITLE) && !text.includes(CLAUDE_TITLE),
      "alpha's memory in beta",
    );
  }

  // The collector down (stopped, and nothing to start it again): the session runs as ever, its
  // prompt and turn end are spooled, and the next collector stores each once.
  const downPrompt = "What does the check script do while the collector is down?";
  model.setScript(callsThenText([], "It runs false."));
  await sessionWhileDown(box, {
    cwd: alpha,
    prompt: downPrompt,
    async session() {
      const down = await box.codex(downPrompt, { cwd: alpha, modelUrl: model.url });
      assert.equal(down.code, 0, down.stdout + down.stderr);
      assert.equal(down.stdout.trim(), "It runs false.");
      assert.match(down.stderr, /hook: UserPromptSubmit Completed/);
    },
  });

  // Nothing outlives the sessions but the collector; after stop, nothing at all.
  await box.settled("hooks and clients to exit (left: see strays)");
  await box.stopAll(alpha);
});

Deno.test("Codex CLI (real client): uninstall leaves its config.toml byte for byte as the user had it", async () => {
  await using box = await claudeSandbox();
  const alpha = await box.project("alpha");
  const original = '# mine\nmodel = "o3" # keep this comment\n\n[tui]\nnotifications = true\n';
  await Deno.mkdir(`${box.home}/.codex`, { recursive: true });
  await Deno.writeTextFile(`${box.home}/.codex/config.toml`, original);
  // `uninstall --all`: config.toml is user-level wiring, which a project's uninstall leaves.
  for (const args of [["install"], ["uninstall", "--all"]]) {
    const done = await box.kiroLearn(args, alpha);
    assert.equal(done.code, 0, outputText(done));
  }
  assert.equal(await Deno.readTextFile(`${box.home}/.codex/config.toml`), original);
  assert.deepEqual([...Deno.readDirSync(`${box.home}/.codex`)].map((e) => e.name), ["config.toml"]);
});
