// Compaction against a real SQLite file and a real (scripted) ACP compactor process.
import assert from "node:assert/strict";
import { COMPACTOR_AGENT } from "@kiro-learn/agents";
import { ULID_PATTERN } from "@kiro-learn/core/ids";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import { makeEvent } from "@kiro-learn/core/testing";
import { silentLogger } from "../runtime/mod.ts";
import { scriptedAgent } from "../../tooling/testing/mod.ts";
import { compactQueue, digestEntries } from "./_compaction.ts";
import { Semaphore } from "../llm/mod.ts";
import { runAcpPrompt } from "../llm/mod.ts";
import type { PromptRunner } from "../llm/mod.ts";

const PROJECT = "a".repeat(64);

// The scripted agent reads its script from the environment we hand the child.
function runnerWith(env: Record<string, string>): PromptRunner {
  return async (command, prompt, options) => {
    const result = await runAcpPrompt(command, prompt, { timeoutMs: options.timeoutMs, env });
    return { text: result.text };
  };
}

async function seeded(n: number): Promise<{ storage: SqliteStorage; ids: string[]; dir: string }> {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/t.db`);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const event = makeEvent({
      kind: "tool_use",
      body: {
        type: "json",
        data: { tool_name: "fs_write", tool_input: { path: `src/m${i}.ts`, command: "create" } },
      },
    });
    ids.push(event.event_id);
    await storage.ingestEvent(event, { project_id: PROJECT, enqueue: true });
  }
  return { storage, ids, dir };
}

Deno.test("the compactor's entries replace the oldest half, with every replaced id as provenance", async () => {
  const { storage, ids, dir } = await seeded(6);
  await using agent = await scriptedAgent([{
    reply: "<compacted_entry>Created m0–m2 modules.</compacted_entry>\n" +
      "<compacted_entry>Wired &lt;them&gt; together.</compacted_entry>",
  }]);
  try {
    const result = await compactQueue(PROJECT, {
      storage,
      runner: runnerWith(agent.env),
      semaphore: new Semaphore(2),
      useAgent: true,
      command: agent.command,
      timeoutMs: 10_000,
      maxAttempts: 2,
      logger: silentLogger(),
    });
    assert.deepEqual(result, { replaced: 3, added: 2, strategy: "agent" });
    // The compactor's whole instructions reached the agent, ahead of the request: a generic ACP
    // agent never sees the kiro-learn-compactor agent definition.
    const [prompt] = await agent.prompts();
    assert.ok(prompt.text.includes(COMPACTOR_AGENT.prompt), "the compactor's instructions");
    assert.ok(prompt.text.indexOf(COMPACTOR_AGENT.prompt) < prompt.text.indexOf("<observations>"));
    const queue = await storage.snapshotQueue(PROJECT);
    assert.equal(queue.length, 5);
    const compacted = queue.filter((e) => e.compacted);
    assert.deepEqual(compacted.map((e) => e.body), [
      { type: "text", content: "Created m0–m2 modules." },
      { type: "text", content: "Wired <them> together." },
    ]);
    for (const row of compacted) {
      assert.deepEqual(row.source_event_ids, ids.slice(0, 3));
      for (const id of row.source_event_ids) assert.match(id, ULID_PATTERN);
      assert.equal(row.kind, "session_summary");
    }
    const kept = queue.filter((e) => !e.compacted).flatMap((e) => e.source_event_ids);
    assert.deepEqual(kept, ids.slice(3));
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("garbage from the compactor falls back to a deterministic digest", async () => {
  const { storage, ids, dir } = await seeded(4);
  await using agent = await scriptedAgent([{ reply: "I cannot do that." }]);
  try {
    const before = await storage.snapshotQueue(PROJECT);
    const result = await compactQueue(PROJECT, {
      storage,
      runner: runnerWith(agent.env),
      semaphore: new Semaphore(2),
      useAgent: true,
      command: agent.command,
      timeoutMs: 10_000,
      maxAttempts: 2,
      logger: silentLogger(),
    });
    assert.deepEqual(result, { replaced: 2, added: 1, strategy: "digest" });
    assert.equal((await agent.prompts()).length, 2, "two attempts, each a fresh session");
    const [digest] = (await storage.snapshotQueue(PROJECT)).filter((e) => e.compacted);
    assert.deepEqual(digest.source_event_ids, ids.slice(0, 2));
    assert.deepEqual(digest.body, { type: "text", content: digestEntries(before.slice(0, 2)) });
    assert.match(digestEntries(before.slice(0, 2)), /m0\.ts/);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("without an agent, compaction uses the digest and spends nothing", async () => {
  const { storage, dir } = await seeded(3);
  try {
    const result = await compactQueue(PROJECT, {
      storage,
      runner: () => Promise.reject(new Error("must not be called")),
      semaphore: new Semaphore(1),
      useAgent: false,
      command: ["unused"],
      timeoutMs: 1000,
      maxAttempts: 2,
      logger: silentLogger(),
    });
    assert.equal(result.strategy, "digest");
    const day = new Date().toISOString().slice(0, 10);
    assert.equal((await storage.llmUsage({ day })).calls, 0);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a compaction request never exceeds the prompt cap", async () => {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/t.db`);
  await using agent = await scriptedAgent([{
    reply: "<compacted_entry>Summary.</compacted_entry>",
  }]);
  try {
    for (let i = 0; i < 40; i++) {
      const event = makeEvent({
        kind: "tool_use",
        body: {
          type: "json",
          data: {
            tool_name: "fs_read",
            tool_input: { path: `f${i}` },
            tool_response: "x".repeat(1500),
          },
        },
      });
      await storage.ingestEvent(event, { project_id: PROJECT, enqueue: true });
    }
    const result = await compactQueue(PROJECT, {
      storage,
      runner: runnerWith(agent.env),
      semaphore: new Semaphore(1),
      useAgent: true,
      command: agent.command,
      timeoutMs: 10_000,
      maxAttempts: 1,
      logger: silentLogger(),
      promptCapBytes: 8192,
    });
    assert.equal(result.strategy, "agent");
    assert.ok(
      result.replaced >= 2 && result.replaced < 20,
      `${result.replaced} rows in one prompt`,
    );
    const [prompt] = await agent.prompts();
    assert.ok(prompt.text.length <= 8192 + 2048, `prompt of ${prompt.text.length} chars`);
    assert.equal((await storage.snapshotQueue(PROJECT)).length, 40 - result.replaced + 1);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});
