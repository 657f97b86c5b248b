// The secret corpus through every way in — the API (events, saved memories, search and retrieval
// queries), a Claude Code hook with the collector up, the same hook with the collector down (spool)
// and the spool drain — then every byte of the data dir is searched: the database, its WAL, the
// spool, the logs. No secret may be found anywhere.
import assert from "node:assert/strict";
import { newEventId, newRecordId } from "@kiro-learn/core/ids";
import { makeEvent, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { makeProject, runShimProcess } from "@kiro-learn/shims/testing";
import corpus from "../../../core/privacy/testdata/secrets_corpus.json" with { type: "json" };
import { everyFile, postJson, startTestDaemon } from "./mod.ts";

/** Every place a secret was found: `file: kind`. */
async function leaks(dir: string): Promise<string[]> {
  const found: string[] = [];
  const decoder = new TextDecoder("utf-8", { fatal: false });
  for (const file of await everyFile(dir)) {
    const text = decoder.decode(await Deno.readFile(file));
    for (const entry of corpus) {
      if (text.includes(entry.secret)) found.push(`${file.slice(dir.length)}: ${entry.kind}`);
    }
  }
  return [...new Set(found)];
}

function hookPayload(prompt: string, cwd: string): string {
  return JSON.stringify({
    session_id: "secret-leak",
    transcript_path: "/tmp/none.jsonl",
    cwd,
    hook_event_name: "UserPromptSubmit",
    prompt,
  });
}

Deno.test("no secret of the corpus reaches any byte of the data dir, whatever the way in", async () => {
  await using daemon = await startTestDaemon({ keepDataDir: false });
  const project = await makeProject();
  try {
    for (const entry of corpus) {
      // The API: an event with retrieval (its query is logged), a saved memory, a search.
      const event = makeEvent({
        event_id: newEventId(),
        body: { type: "text", content: entry.text },
      });
      const posted = await postJson(daemon, "/v1/events?retrieve=true", event);
      assert.equal(posted.status, 200, await posted.text());
      const saved = await postJson(daemon, "/v1/memories", {
        record_id: newRecordId(),
        namespace: TEST_NAMESPACE,
        strategy: "mcp_observation",
        title: `note ${entry.kind}`,
        summary: entry.text,
        facts: [entry.text],
        concepts: [],
        files_touched: [],
        observation_type: "discovery",
        source_event_ids: [event.event_id],
        created_at: new Date().toISOString(),
      });
      assert.equal(saved.status, 200, await saved.text());
      const params = new URLSearchParams({ namespace: TEST_NAMESPACE, query: entry.text });
      await (await daemon.fetch(`/v1/memories/search?${params}`)).body?.cancel();
    }
    // A real hook process with the collector up…
    for (const entry of corpus.slice(0, 40)) {
      const run = await runShimProcess("claude-code", {
        settings: daemon.settings,
        env: daemon.env,
        cwd: project,
        stdin: hookPayload(entry.text, project),
      });
      assert.equal(run.code, 0);
    }
    // …and with the collector down: the hook spools (scrubbed first), the restart drains it.
    await daemon.kill();
    for (const entry of corpus.slice(40, 80)) {
      const run = await runShimProcess("claude-code", {
        settings: daemon.settings,
        env: daemon.env,
        cwd: project,
        stdin: hookPayload(entry.text, project),
      });
      assert.equal(run.code, 0);
    }
    const spooled = await leaks(daemon.settings.paths.spool);
    assert.deepEqual(spooled, [], "the spool holds a secret");
    await daemon.restart();
    // Stop cleanly so the WAL is checkpointed, then read every byte that is left.
    await daemon.kill();
    assert.deepEqual(await leaks(daemon.dataDir), []);
  } finally {
    await Deno.remove(project, { recursive: true });
  }
});
