// The transcript fixture was recorded from the real Claude Code 2.1.332 (one prompt, one failing
// Bash call, the answer) against the scripted model; the client's own request bodies are left out.
import assert from "node:assert/strict";
import { currentActor, resolveProject } from "@kiro-learn/core/project";
import { startTestDaemon } from "@kiro-learn/collector/testing";
import { importTranscript, transcriptPayloads } from "./claude_import.ts";
import { loadShimConfig } from "./transport.ts";
import { fixtureText, makeProject, storedEvents } from "./testing.ts";

const SESSION = "228aa5cf-8c7b-444a-89bd-8cde1e864f83";

Deno.test("a real transcript becomes the prompt, the failed tool use and the turn's answer", () => {
  const lines = fixtureText("claude_code/transcript.jsonl", "/work/shop-api").split("\n");
  const found = transcriptPayloads(lines, { sessionId: SESSION });
  assert.deepEqual(found.payloads.map((p) => p.payload.hook_event_name), [
    "UserPromptSubmit",
    "PostToolUseFailure",
    "Stop",
  ]);
  const [prompt, tool, stop] = found.payloads.map((p) => p.payload);
  assert.equal(prompt.prompt, "Run the check script and tell me why it fails");
  assert.equal(prompt.cwd, "/work/shop-api");
  assert.equal(tool.tool_name, "Bash");
  assert.deepEqual(tool.tool_input, { command: "false", description: "Run the failing check" });
  assert.equal(tool.error, "Exit code 1");
  assert.match(String(stop.last_assistant_message), /false always exits 1/);
  // The client's bookkeeping lines are counted, not imported; nothing is fatal.
  assert.ok(found.skipped["attachment"] > 0);
  assert.ok(found.skipped["api-request"] > 0);
});

Deno.test("unknown and broken lines are skipped and counted", () => {
  const found = transcriptPayloads([
    "not json",
    JSON.stringify({ type: "hologram", uuid: "u1", timestamp: "2026-11-25T10:00:00Z" }),
    JSON.stringify({
      type: "user",
      uuid: "u2",
      timestamp: "2026-11-25T10:00:01Z",
      cwd: "/p",
      message: { role: "user", content: "hello there" },
    }),
    JSON.stringify({
      type: "user",
      uuid: "u3",
      timestamp: "2026-11-25T10:00:02Z",
      isMeta: true,
      message: { role: "user", content: "<command-name>/clear</command-name>" },
    }),
  ], { sessionId: SESSION });
  assert.deepEqual(found.payloads.map((p) => p.payload.prompt), ["hello there"]);
  assert.deepEqual(found.skipped, { "(not JSON)": 1, "hologram (unknown)": 1, "user (meta)": 1 });
});

Deno.test("importing a transcript stores its events in its project and session, once", async () => {
  await using daemon = await startTestDaemon();
  const project = await makeProject();
  const transcripts = await Deno.makeTempDir({ prefix: "kiro-learn-transcripts-" });
  const file = `${transcripts}/${SESSION}.jsonl`;
  try {
    await Deno.writeTextFile(file, fixtureText("claude_code/transcript.jsonl", project));
    const config = loadShimConfig({ env: daemon.env })!;
    const first = await importTranscript(file, config);
    assert.equal(first.posted, 3, JSON.stringify(first));
    assert.equal(first.failed, 0);
    const namespace = resolveProject(project, { actor: currentActor() }).namespace;
    const events = await storedEvents(daemon, namespace);
    assert.deepEqual(events.map((e) => e.kind).sort(), ["prompt", "session_summary", "tool_use"]);
    assert.ok(events.every((e) => e.session_id === SESSION && e.source.surface === "claude-code"));
    const prompt = events.find((e) => e.kind === "prompt")!;
    assert.equal(prompt.valid_time, "2026-11-25T13:57:14.812Z", "when it happened");
    // Again: the same ids, nothing added.
    const again = await importTranscript(file, config);
    assert.equal(again.posted, 3);
    assert.equal((await storedEvents(daemon, namespace)).length, 3);
  } finally {
    await Deno.remove(project, { recursive: true });
    await Deno.remove(transcripts, { recursive: true });
  }
});
