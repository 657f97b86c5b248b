// The real Claude Code client, offline against a scripted model, with kiro-learn installed by its
// own installer and a real collector: what the hooks record, and what memory reaches the model.
import assert from "node:assert/strict";
import { ROUTES } from "@kiro-learn/core/api/wire";
import { makeRecord } from "@kiro-learn/core/testing";
import {
  claudeSandbox,
  isCollectorProcess,
  processesWithEnv,
  requestText,
  startScriptedModel,
  type StoredEvent,
  toolsThenText,
  toolThenText,
  waitFor,
} from "./mod.ts";

const MEMORY_TITLE = "Leap-year date parser fix";
const REPEATED_TITLE = "It printed hi.";

Deno.test("Claude Code (real client): a session is recorded, and project memory reaches the model only in its project", async () => {
  await using box = await claudeSandbox();
  await using model = startScriptedModel(
    toolThenText(
      { name: "Bash", input: { command: "false", description: "Run the failing check" } },
      "The check failed: false always exits 1.",
    ),
  );
  const alpha = await box.project("alpha");
  const beta = await box.project("beta");

  const installed = await box.installAndStart(alpha);
  assert.match(installed, /add Claude Code hooks/);

  // Session 1 in alpha: a prompt, a failing Bash call, an answer.
  const first = await box.claude("Run the check script and tell me why it fails", {
    cwd: alpha,
    modelUrl: model.url,
  });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.equal(first.result, "The check failed: false always exits 1.");
  const alphaNs = box.namespaceOf(alpha);
  // One event per prompt, tool use and turn's end. No session-start hook fires at startup (the
  // first prompt carries the start block), none at the session's end (it would only note that the
  // session ended), and none per tool call: the turn's end (Stop) reads the turn's tool uses from
  // Claude Code's transcript, in the background while Claude Code exits. Each must still arrive,
  // once.
  const perHook = (events: StoredEvent[]) => ({
    SessionStart: events.filter((e) => e.body.content === "session started").length,
    UserPromptSubmit: events.filter((e) => e.kind === "prompt").length,
    PostToolUseFailure: events.filter((e) => e.kind === "tool_use").length,
    Stop: events.filter((e) => e.kind === "session_summary").length,
    SessionEnd: events.filter((e) => e.body.content?.startsWith("session ended")).length,
  });
  const events = await waitFor(async () => {
    const ours = await box.eventsIn(alphaNs);
    const { SessionStart: _none, SessionEnd: _noEnd, ...hooked } = perHook(ours);
    return Object.values(hooked).every((n) => n > 0) ? ours : undefined;
  }, { timeoutMs: 60_000, what: "session 1's prompt, tool use and turn's end in the collector" });
  assert.deepEqual(perHook(events), {
    SessionStart: 0,
    UserPromptSubmit: 1,
    PostToolUseFailure: 1,
    Stop: 1,
    SessionEnd: 0,
  });
  assert.equal(events.length, 3, JSON.stringify(events.map((e) => [e.kind, e.body.content])));
  assert.equal(
    events.find((e) => e.kind === "session_summary")!.body.content,
    "The check failed: false always exits 1.",
    "Stop records the last answer",
  );
  assert.ok(events.every((e) => e.source.surface === "claude-code"), JSON.stringify(events));
  assert.ok(events.every((e) => e.source.project_path === alpha));
  const prompt = events.find((e) => e.kind === "prompt")!;
  assert.equal(prompt.body.content, "Run the check script and tell me why it fails");
  const tool = events.find((e) => e.kind === "tool_use")!.body.data!;
  assert.equal(tool.tool_name, "Bash");
  assert.deepEqual(tool.tool_input, { command: "false", description: "Run the failing check" });
  assert.equal(tool.failed, true, "Bash `false` fails: the transcript's error must record that");
  assert.equal(new Set(events.map((e) => e.session_id)).size, 1, "one session id");
  // The prompt hook took the fast path (the collector's Unix socket, no Deno process); the turn's
  // end goes to the shim, which reads the transcript.
  const stats = await (await box.api(ROUTES.stats)).json();
  assert.ok(stats.latency.hook.count >= 1, `fast-path hooks: ${JSON.stringify(stats.latency)}`);

  // What three short sessions that each printed "hi" leave behind: the same summary three times.
  // The model must see it once.
  for (const session of ["hi-1", "hi-2", "hi-3"]) {
    const repeated = makeRecord({
      namespace: alphaNs,
      title: REPEATED_TITLE,
      summary: `Asked to print hi; it printed hi. (${session})`,
      observation_type: "session_summary",
    });
    const res = await box.api(ROUTES.memories, { method: "POST", body: JSON.stringify(repeated) });
    assert.ok(res.ok, await res.text());
  }
  // A memory of alpha's, then session 2 in alpha: the model must see it.
  const record = makeRecord({
    namespace: alphaNs,
    title: MEMORY_TITLE,
    summary: "The date parser check fails on leap years because February has 29 days.",
    concepts: ["date parser", "leap year"],
  });
  const saved = await box.api(ROUTES.memories, { method: "POST", body: JSON.stringify(record) });
  assert.ok(saved.ok, await saved.text());

  const question = "Why does the date parser check fail on leap years?";
  const seenBefore = model.requests.length;
  const second = await box.claude(question, { cwd: alpha, modelUrl: model.url });
  assert.equal(second.code, 0, second.stdout + second.stderr);
  const secondRequests = model.requests.slice(seenBefore).filter((r) => r.body !== null);
  assert.ok(secondRequests.length > 0, "session 2 reached the model");
  const injected = requestText(secondRequests[0].body);
  assert.ok(
    injected.includes(MEMORY_TITLE),
    `session 2's first model request lacks the memory "${MEMORY_TITLE}": the hooks' context ` +
      `did not reach the model. Request: ${injected.slice(0, 4000)}`,
  );
  // The session-start block carries it (at startup, in the first prompt's hook answer, ahead of
  // the prompt's own block), and the prompt's block does not repeat it: one record appears once
  // per request.
  assert.match(
    injected,
    /Where this project left off \(kiro-learn\)[^]{0,80}Leap-year date parser fix/,
  );
  assert.equal(injected.split(MEMORY_TITLE).length - 1, 1, "the memory appears exactly once");
  assert.equal(
    injected.split(`### ${REPEATED_TITLE}`).length - 1,
    1,
    `a summary three sessions repeated must be injected once. Request: ${injected.slice(0, 4000)}`,
  );

  // Session 3 in beta: the same question, no memory of alpha's.
  const seenAlpha = model.requests.length;
  const third = await box.claude(question, { cwd: beta, modelUrl: model.url });
  assert.equal(third.code, 0, third.stdout + third.stderr);
  const thirdRequests = model.requests.slice(seenAlpha).filter((r) => r.body !== null);
  assert.ok(thirdRequests.length > 0, "session 3 reached the model");
  for (const request of thirdRequests) {
    assert.ok(
      !requestText(request.body).includes(MEMORY_TITLE),
      "a memory of project alpha reached the model in project beta",
    );
  }

  // Nothing outlives the sessions but the collector; after stop, nothing at all.
  await box.settled("hooks and clients to exit (left: see strays)");
  assert.equal(
    processesWithEnv("HOME", box.home).filter(isCollectorProcess).length,
    1,
    "one collector",
  );
  await box.stopAll(alpha);
});

Deno.test("Claude Code (real client): every tool call of a turn is recorded once, in order, from the transcript", async () => {
  await using box = await claudeSandbox();
  await using model = startScriptedModel(
    toolsThenText([
      { name: "Write", input: { file_path: "notes.txt", content: "clamp(lo, hi)\n" } },
      { name: "Bash", input: { command: "false", description: "Run the failing check" } },
      { name: "Read", input: { file_path: "notes.txt" } },
      { name: "Bash", input: { command: "echo done", description: "Say done" } },
    ], "Wrote the notes; the check fails."),
  );
  const project = await box.project("gamma");
  await box.installAndStart(project);
  const namespace = box.namespaceOf(project);
  const run = await box.claude("Write the notes, run the check, read them back", {
    cwd: project,
    modelUrl: model.url,
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(run.result, "Wrote the notes; the check fails.");
  const tools = await waitFor(async () => {
    const items = await box.eventsIn(namespace);
    const ended = items.some((e) => e.kind === "session_summary");
    return ended ? items.filter((e) => e.kind === "tool_use").reverse() : undefined;
  }, { timeoutMs: 60_000, what: "the turn's end and its tool uses in the collector" });
  assert.deepEqual(
    tools.map((e) => `${e.body.data!.tool_name}${e.body.data!.failed ? " (failed)" : ""}`),
    ["Write", "Bash (failed)", "Read", "Bash"],
  );
  assert.ok(tools.every((e) => e.source.project_path === project));
});
