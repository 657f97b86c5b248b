// `kiro-learn status` against a real collector whose agent fails.
import assert from "node:assert/strict";
import { makeEvent, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import {
  postJson,
  startTestDaemon,
  startTestDaemonWithFailingAgent,
} from "../tooling/testing/mod.ts";
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

Deno.test("status names the agents whose events it holds, Gemini CLI among them", async () => {
  await using daemon = await startTestDaemon();
  const lines: string[] = [];
  await status(daemon.settings, { print: (l) => lines.push(l) });
  assert.ok(lines.includes("agents: none yet"), lines.join("\n"));
  const from = (surface: "claude-code" | "gemini-cli") =>
    makeEvent({ source: { surface, version: "1", client_id: "host", project_path: "/tmp/p" } });
  for (const event of [from("gemini-cli"), from("claude-code"), from("gemini-cli")]) {
    const res = await postJson(daemon, "/v1/events", event);
    assert.ok(res.ok, await res.text());
  }
  lines.length = 0;
  await status(daemon.settings, { print: (l) => lines.push(l) });
  assert.ok(
    lines.includes("agents: claude-code 1 event(s), gemini-cli 2 event(s)"),
    lines.join("\n"),
  );
  const json: string[] = [];
  await status(daemon.settings, { print: (l) => json.push(l), json: true });
  assert.deepEqual(JSON.parse(json.join("\n")).agents, { "claude-code": 1, "gemini-cli": 2 });
});
