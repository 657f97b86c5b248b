/**
 * Shims as real processes when the collector is down, slow or its spool is full: the event is
 * never lost (spooled, then drained exactly once) and the hook still exits 0 quickly.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  drainSpool,
  postJson,
  startTestDaemon,
  type TestDaemon,
} from "@kiro-learn/collector/testing";

import { DROPPED_LOG, spoolStatus } from "@kiro-learn/core/spool";
import {
  fixtureText,
  hungCollector,
  jsonObjectOutput,
  makeDataDir,
  makeProject,
  runShimProcess,
  shimSandbox,
  spoolFiles,
  storedEvents,
} from "./testing.ts";

function postingIngest(daemon: TestDaemon) {
  return async (event: unknown) => {
    const res = await postJson(daemon, "/v1/events", event);
    await res.body?.cancel();
    if (res.status >= 500) throw new Error(`collector answered ${res.status}`);
    return { ok: res.ok };
  };
}

Deno.test("collector down: events are spooled, then drained into the collector exactly once", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const spool = daemon.settings.paths.spool;
  const run = (name: string) =>
    runShimProcess("kiro-cli", {
      settings: daemon.settings,
      env: daemon.env,
      cwd: project,
      stdin: fixtureText(name, project),
    });
  try {
    await daemon.kill();
    const prompt = await run("kiro_cli/user_prompt_submit.json");
    assert.equal(prompt.code, 0);
    assert.equal(prompt.stdout, "");
    assert.match(prompt.stderr, /not reachable.*spooling/);
    assert.equal((await run("kiro_cli/post_tool_use_deferred.json")).code, 0);
    const files = spoolFiles(spool);
    assert.equal(files.length, 4);
    const first = JSON.parse(await Deno.readTextFile(`${spool}/${files[0]}`));
    assert.equal(first.query, "retrieve");
    assert.equal(first.event.kind, "prompt");
    const ids = files.map((f) => f.replace(/\.json$/, ""));

    // A crash after ingesting but before deleting leaves a file behind; keep one to replay that.
    const replayed = await Deno.readTextFile(`${spool}/${files[1]}`);
    await daemon.restart();
    await drainSpool(spool, postingIngest(daemon));
    assert.deepEqual(spoolFiles(spool), []);
    await Deno.writeTextFile(`${spool}/${files[1]}`, replayed);
    await drainSpool(spool, postingIngest(daemon));
    await drainSpool(spool, postingIngest(daemon));
    assert.deepEqual(spoolFiles(spool), []);

    const stored = await storedEvents(daemon);
    for (const id of ids) {
      assert.equal(stored.filter((e) => e.event_id === id).length, 1, `event ${id} stored once`);
    }
    assert.equal(stored.length, 4);
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("collector slow (never answers): the shim gives up within its timeout and spools", async () => {
  await using hung = hungCollector();
  const port = hung.port;
  await using box = await shimSandbox({
    collector: { host: "127.0.0.1", port },
    shim: { timeoutMs: 400 },
  });
  const { data, project } = box;
  const result = await runShimProcess("kiro-cli", {
    settings: data.settings,
    env: data.env,
    cwd: project,
    stdin: fixtureText("kiro_cli/user_prompt_submit.json", project),
  });
  // It gave up by its own 400 ms timeout, not by being killed ("hangs until the agent kills it").
  assert.ok(!result.killed, "the shim hung until the test killed it");
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /did not answer within 400 ms/);
  assert.ok(hung.held.length >= 1, "the shim did connect");
  assert.equal(spoolFiles(data.settings.paths.spool).length, 1);
});

Deno.test("spool full: nothing written, a dropped.log line and a stderr warning", async () => {
  const data = await makeDataDir({
    collector: { host: "127.0.0.1", port: 9 },
    spool: { maxBytes: 1_048_576 },
  });
  const project = await makeProject();
  const spool = data.settings.paths.spool;
  try {
    await Deno.mkdir(spool, { recursive: true });
    // One large spooled event fills the spool.
    await Deno.writeTextFile(`${spool}/01ARZ3NDEKTSV4RRFFQ69G5FAV.json`, "x".repeat(1_048_000));
    const result = await runShimProcess("kiro-cli", {
      settings: data.settings,
      env: data.env,
      cwd: project,
      stdin: fixtureText("kiro_cli/post_tool_use_bash_failed.json", project),
    });
    assert.equal(result.code, 0);
    assert.match(result.stderr, /spool full/);
    assert.equal(spoolFiles(spool).length, 1);
    const log = await Deno.readTextFile(`${spool}/${DROPPED_LOG}`);
    assert.match(log, /dropped [0-9A-Z]{26} kind=tool_use/);
    assert.deepEqual(spoolStatus(spool, { maxBytes: 1_048_576 }).dropped, 1);
  } finally {
    await Deno.remove(data.dir, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});

/** The whole stdout of a Claude Code prompt hook whose collector is down and cannot be started. */
const COLLECTOR_DOWN_ONLY =
  /^\[kiro-learn\] no project memory this session: the collector is not running \([^\n]*\)\. Run `kiro-learn start` \(or `kiro-learn doctor`\)\.\n$/;

/** What a stdin shim may print with its collector down, whatever it read: each agent's rule. */
const DOWN_OUTPUT: Readonly<Record<StdinSurface, (stdout: string) => void>> = {
  "kiro-cli": (stdout) => assert.equal(stdout, ""),
  // A Claude Code prompt, which carries the session-start block, says instead that the collector
  // is down and could not be started (its only output here).
  "claude-code": (stdout) => stdout === "" || assert.match(stdout, COLLECTOR_DOWN_ONLY),
  // Codex adds plain stdout to the context: never opening with `[` (read as invalid JSON).
  codex: (stdout) =>
    stdout === "" || assert.match(stdout, /^kiro-learn:\n\[kiro-learn\] no project memory/),
  // Gemini CLI and Copilot CLI read one JSON object, whatever happened.
  "gemini-cli": (stdout) => void jsonObjectOutput(stdout),
  "copilot-cli": (stdout) => void jsonObjectOutput(stdout),
};
type StdinSurface = "kiro-cli" | "claude-code" | "codex" | "gemini-cli" | "copilot-cli";

Deno.test("property: any stdin bytes → exit 0, and nothing on stdout but what the agent accepts (every stdin shim)", async () => {
  const data = await makeDataDir({ collector: { host: "127.0.0.1", port: 9 } });
  const project = await makeProject();
  const hookName = fc.constantFrom(
    "userPromptSubmit",
    "postToolUse",
    "UserPromptSubmit",
    "Stop",
    "BeforeAgent",
    "AfterAgent",
    "userPromptSubmitted",
    "agentStop",
    "x",
  );
  const hookish = fc.record({
    hook_event_name: hookName,
    cwd: fc.oneof(fc.constant(project), fc.string()),
    prompt: fc.anything(),
    tool_name: fc.anything(),
    tool_response: fc.anything(),
    hook_events: fc.anything(),
    session_id: fc.anything(),
  }).map((v) => new TextEncoder().encode(JSON.stringify(v)));
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.uint8Array({ maxLength: 512 }), hookish),
        fc.constantFrom(...Object.keys(DOWN_OUTPUT) as StdinSurface[]),
        hookName,
        async (bytes, surface, argument) => {
          const result = await runShimProcess(surface, {
            settings: data.settings,
            env: data.env,
            cwd: project,
            stdin: bytes,
            // Copilot CLI's hook command names the event; the others' payloads do.
            ...(surface === "copilot-cli" ? { args: [argument] } : {}),
          });
          assert.equal(result.code, 0, result.stderr);
          DOWN_OUTPUT[surface](result.stdout);
          assert.doesNotMatch(result.stderr, /internal error|Uncaught/);
        },
      ),
      { numRuns: 30 },
    );
  } finally {
    await Deno.remove(data.dir, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});

Deno.test("a spooled event is scrubbed before it touches disk", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const token = "ghp_" + "S".repeat(36);
  try {
    await daemon.kill();
    const payload = JSON.stringify({
      hook_event_name: "userPromptSubmit",
      cwd: project,
      prompt: `deploy with ${token} <private>the plan</private>`,
    });
    const out = await runShimProcess("kiro-cli", {
      settings: daemon.settings,
      env: daemon.env,
      cwd: project,
      stdin: payload,
    });
    assert.equal(out.code, 0);
    const files = spoolFiles(daemon.settings.paths.spool);
    assert.equal(files.length, 1);
    const text = await Deno.readTextFile(`${daemon.settings.paths.spool}/${files[0]}`);
    assert.ok(!text.includes(token), "the token reached the spool");
    assert.ok(!text.includes("the plan"), "the private span reached the spool");
    assert.match(text, /\[REDACTED\]/);
    await daemon.restart();
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});
