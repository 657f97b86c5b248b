// One extraction run against a real SQLite file: rows are read in the order things happened, not
// the order they arrived. Claude Code's tool uses are delivered at their turn's end, so they can
// arrive after the next prompt; read in arrival order, they would join that prompt's turn.
import assert from "node:assert/strict";
import type { Event } from "@kiro-learn/core/schemas";
import {
  type ExtractionRun,
  openSqliteStorage,
  type SqliteStorage,
} from "@kiro-learn/core/storage";
import { makeEvent } from "@kiro-learn/core/testing";
import { Semaphore } from "../llm/mod.ts";
import { runAcpPrompt } from "../llm/mod.ts";
import type { PromptRunner } from "../llm/mod.ts";
import { silentLogger } from "../runtime/mod.ts";
import { scriptedAgent } from "../../tooling/testing/mod.ts";
import { type ExtractionDeps, runExtraction } from "./run.ts";

const PROJECT = "b".repeat(64);
const CLAUDE = { surface: "claude-code", version: "2.1.0", client_id: "host" } as const;

function prompt(content: string, validTime: string): Event {
  return makeEvent({
    kind: "prompt",
    body: { type: "text", content },
    valid_time: validTime,
    source: CLAUDE,
  });
}

function edit(path: string, validTime: string): Event {
  return makeEvent({
    kind: "tool_use",
    body: {
      type: "json",
      data: {
        tool_name: "Edit",
        tool_input: { file_path: path, old_string: "old", new_string: "new" },
        tool_response: { success: true },
      },
    },
    valid_time: validTime,
    source: CLAUDE,
  });
}

/**
 * Two Claude Code turns as they arrive: turn 1's prompt, turn 2's prompt (typed while turn 1's
 * tool uses were still being delivered), turn 1's edit, then turn 2's edit. Turn 2's edit is
 * stamped with an offset whose text sorts before every other timestamp, although it happened
 * last: times must be compared as instants.
 */
const ARRIVALS: Event[] = [
  prompt("make the parser strict", "2026-03-01T10:00:00.000Z"),
  prompt("now document it", "2026-03-01T10:05:00.000Z"),
  edit("src/parser.ts", "2026-03-01T10:01:00.000Z"),
  edit("docs/parser.md", "2026-03-01T09:06:00.000-01:00"), // 10:06 UTC
];

async function queued(): Promise<{ storage: SqliteStorage; dir: string }> {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/t.db`);
  for (const event of ARRIVALS) {
    await storage.ingestEvent(event, { project_id: PROJECT, enqueue: true });
  }
  return { storage, dir };
}

function deps(storage: SqliteStorage, overrides: Partial<ExtractionDeps> = {}): ExtractionDeps {
  return {
    storage,
    strategy: () => "heuristic",
    agentCommand: [],
    runner: () => Promise.reject(new Error("the heuristic run must not call an agent")),
    semaphore: new Semaphore(1),
    promptCapBytes: 65_536,
    timeoutMs: 10_000,
    maxAttempts: 1,
    dailyBudgetChars: 1_000_000,
    logger: silentLogger(),
    ...overrides,
  };
}

Deno.test("the heuristic extractor gets each prompt before its own tool uses, whatever the arrival order", async () => {
  const { storage, dir } = await queued();
  try {
    const outcome = await runExtraction(PROJECT, deps(storage));
    assert.deepEqual(outcome, { ok: true, consumed: 4 });
    const { items } = await storage.listRecords({ limit: 100, offset: 0 });
    // In arrival order, both edits would follow turn 2's prompt: one "Edited parser.ts and
    // parser.md" record for a turn that never happened.
    assert.deepEqual(items.map((r) => r.title).sort(), ["Edited parser.md", "Edited parser.ts"]);
    assert.deepEqual(await storage.snapshotQueue(PROJECT), [], "every row consumed");
    // Dated when the session happened (its last event), not when it was extracted.
    for (const r of items) assert.equal(r.created_at, "2026-03-01T10:06:00.000Z", r.title);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the agent's prompt frames the rows in the order things happened", async () => {
  const { storage, dir } = await queued();
  const agent = await scriptedAgent([{
    reply: `<memory_record type="decision"><title>Strict parser, documented</title>` +
      `<summary>The parser became strict and was documented.</summary></memory_record>`,
  }]);
  // The scripted agent reads its script from the environment we hand the child.
  const runner: PromptRunner = async (command, text, options) => {
    const result = await runAcpPrompt(command, text, {
      timeoutMs: options.timeoutMs,
      env: agent.env,
    });
    return { text: result.text };
  };
  try {
    const outcome = await runExtraction(
      PROJECT,
      deps(storage, { strategy: () => "acp", agentCommand: agent.command, runner }),
    );
    assert.deepEqual(outcome, { ok: true, consumed: 4 });
    const [sent] = await agent.prompts();
    const at = (needle: string) => {
      const index = sent.text.indexOf(needle);
      assert.ok(index >= 0, `${needle} is in the prompt`);
      return index;
    };
    const order = ["make the parser strict", "src/parser.ts", "now document it", "docs/parser.md"];
    const positions = order.map(at);
    assert.deepEqual([...positions].sort((a, b) => a - b), positions, order.join(" < "));
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a run without a reconciler stores a heuristic record the project already holds once", async () => {
  const { storage, dir } = await queued();
  try {
    await runExtraction(PROJECT, deps(storage));
    // The same two turns again, a day later (new events, the same observations).
    for (const event of ARRIVALS) {
      const later = new Date(Date.parse(event.valid_time) + 86_400_000).toISOString();
      await storage.ingestEvent(
        { ...event, event_id: makeEvent().event_id, valid_time: later },
        { project_id: PROJECT, enqueue: true },
      );
    }
    let run: ExtractionRun | undefined;
    const outcome = await runExtraction(PROJECT, deps(storage, { onRun: (r) => run = r }));
    assert.deepEqual(outcome, { ok: true, consumed: 4 });
    const { items } = await storage.listRecords({ limit: 100, offset: 0 });
    assert.deepEqual(items.map((r) => r.title).sort(), ["Edited parser.md", "Edited parser.ts"]);
    assert.equal(run?.records, 0);
    assert.equal((run?.details as { identical_skipped?: number }).identical_skipped, 2);
  } finally {
    storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});
