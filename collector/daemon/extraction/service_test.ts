// Extraction through the real collector, with a scripted ACP agent as the model.
import assert from "node:assert/strict";
import {
  makeEvent,
  makeFsWriteEvent,
  runGit,
  seedRepo,
  TEST_NAMESPACE,
} from "@kiro-learn/core/testing";
import { currentActor, resolveProject } from "@kiro-learn/core/project";
import type { Event } from "@kiro-learn/core/schemas";
import { AGENT_TIMEOUT_MIN_MS } from "@kiro-learn/core/settings";
import {
  liveProcessGroup,
  postJson,
  processLives,
  processText,
  runKiroLearn,
  scriptedAgent,
  startTestDaemon,
  type TestDaemon,
  waitFor,
} from "../../tooling/testing/mod.ts";
import { extractionPrompt } from "./llm_extractor.ts";

// Characters every extraction prompt carries besides its observations (the instructions).
const PROMPT_OVERHEAD = extractionPrompt("").length;

const PROJECT = TEST_NAMESPACE.split("/")[4];

const VALID = `<memory_record type="decision">
<title>Queue lives in SQLite</title>
<summary>The extraction queue is a table so snapshots and commits are atomic.</summary>
<fact>commit and delete share one transaction</fact>
<concept>queue</concept>
<file>core/storage/sqlite.ts</file>
</memory_record>`;
const GARBAGE = "Sure! Here is a summary of what happened in this session.";

function toolEvent(n: number, extra = ""): Event {
  return makeFsWriteEvent({
    command: "str_replace",
    path: `src/file_${n}.ts`,
    new_str: "x".repeat(200) + extra,
  });
}

function settingsFor(agent: { command: string[] }, extra: Record<string, unknown> = {}) {
  return {
    extraction: {
      strategy: "acp",
      agentCommand: agent.command,
      idleMs: 5000,
      sizeThresholdBytes: 1024,
      breakerThreshold: 3,
      breakerCooldownMs: 1500,
      // An agent that answers must not time out on a loaded machine (starting one takes seconds
      // there); the tests of a hanging agent set the shortest allowed timeout themselves.
      timeoutMs: 60_000,
      ...extra,
    },
    compaction: { enabled: false },
  };
}

async function memories(
  daemon: TestDaemon,
): Promise<
  { items: { source_event_ids: string[]; strategy: string; title: string }[]; total: number }
> {
  return await (await daemon.fetch("/v1/memories?limit=500")).json();
}

async function queueRows(daemon: TestDaemon): Promise<number> {
  const stats = await (await daemon.fetch("/v1/stats")).json();
  return (stats.queue as { rows: number }[]).reduce((n, q) => n + q.rows, 0);
}

async function flush(daemon: TestDaemon): Promise<void> {
  const res = await daemon.fetch(`/v1/extraction/flush?project_id=${PROJECT}`, { method: "POST" });
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

async function projectState(daemon: TestDaemon) {
  const stats = await (await daemon.fetch("/v1/stats")).json();
  return stats.extraction.projects.find((p: { project_id: string }) => p.project_id === PROJECT);
}

Deno.test("the size trigger extracts records with the scripted agent over ACP", async () => {
  await using agent = await scriptedAgent([{ reply: VALID, chunks: 7, delayMs: 5 }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent),
    env: agent.env,
  });
  const events = [toolEvent(1), toolEvent(2), toolEvent(3), toolEvent(4), toolEvent(5)];
  for (const e of events) await postJson(daemon, "/v1/events", e).then((r) => r.body?.cancel());
  const page = await waitFor(async () => {
    const m = await memories(daemon);
    return m.total > 0 ? m : undefined;
  }, { what: "records after the size trigger" });
  assert.equal(page.items[0].title, "Queue lives in SQLite");
  assert.equal(page.items[0].strategy, "llm-summary");
  assert.ok(page.items[0].source_event_ids.length >= 3, "a size-triggered batch");
  const prompts = await agent.prompts();
  assert.ok(prompts.length >= 1);
  assert.equal(prompts[0].internal, "1");
  assert.match(prompts[0].text, /<tool_observation kind="tool_use">/);
  const runs = await (await daemon.fetch("/v1/runs?limit=1")).json();
  assert.equal(runs.items[0].outcome, "ok");
  assert.equal(runs.items[0].attempts, 1);
});

Deno.test("the idle trigger fires after the idle gap", async () => {
  await using agent = await scriptedAgent([{ reply: VALID }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent),
    env: agent.env,
  });
  const posted = Date.now();
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await waitFor(async () => (await memories(daemon)).total > 0 || undefined, {
    what: "records after the idle gap",
  });
  // Not before the gap: the run started at least the idle gap after the event arrived (a lower
  // bound a loaded machine cannot break, where "nothing yet after a 2 s sleep" could).
  const runs = await (await daemon.fetch("/v1/runs?limit=1")).json();
  const idleMs = settingsFor(agent).extraction.idleMs;
  const startedAt = Date.parse(runs.items[0].started_at);
  // (5 ms: a timer may fire a millisecond early, and ISO times round to the millisecond.)
  assert.ok(startedAt >= posted + idleMs - 5, `run at +${startedAt - posted} ms, gap ${idleMs}`);
});

Deno.test("garbage twice then valid: three sessions, records stored", async () => {
  await using agent = await scriptedAgent([{ reply: GARBAGE }, { reply: GARBAGE }, {
    reply: VALID,
  }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent),
    env: agent.env,
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  assert.equal((await agent.prompts()).length, 3);
  assert.equal((await memories(daemon)).total, 1);
  assert.equal(await queueRows(daemon), 0);
});

Deno.test("garbage three times leaves the queue intact; the breaker opens, then half-opens", async () => {
  await using agent = await scriptedAgent([{ reply: GARBAGE }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent),
    env: agent.env,
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  assert.equal((await agent.prompts()).length, 3);
  assert.equal(await queueRows(daemon), 1, "the queue row survives a failed run");
  assert.equal((await memories(daemon)).total, 0);
  assert.equal((await projectState(daemon)).failures, 1);
  await flush(daemon);
  await flush(daemon);
  const open = await projectState(daemon);
  assert.equal(open.failures, 3);
  assert.equal(open.breaker, "open");
  await agent.setScript([{ reply: VALID }]);
  const closed = await waitFor(async () => {
    const state = await projectState(daemon);
    return state.breaker === "closed" ? state : undefined;
  }, { what: "the probe after the cool-down" });
  assert.equal(closed.failures, 0);
  assert.equal((await memories(daemon)).total, 1);
  assert.equal(await queueRows(daemon), 0);
});

Deno.test("an empty reply keeps the batch queued and the run fails as an LLM run, with the reason", async () => {
  await using agent = await scriptedAgent([{ reply: "" }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent),
    env: agent.env,
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  assert.equal((await agent.prompts()).length, 3, "every attempt was made");
  assert.equal(await queueRows(daemon), 1, "nothing consumed for an empty reply");
  assert.equal((await memories(daemon)).total, 0);
  const runs = await (await daemon.fetch("/v1/runs?limit=1")).json();
  assert.equal(runs.items[0].outcome, "failed");
  assert.equal(runs.items[0].strategy, "acp");
  assert.match(runs.items[0].error, /empty reply/);
});

Deno.test("an agent crash or timeout leaves the queue intact", async () => {
  await using agent = await scriptedAgent([{ crashAfterChunks: 2 }, { hang: true }, {
    crashAfterChunks: 0,
  }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent, { maxAttempts: 3, timeoutMs: AGENT_TIMEOUT_MIN_MS }),
    env: agent.env,
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  assert.equal(await queueRows(daemon), 1);
  assert.equal((await memories(daemon)).total, 0);
  const runs = await (await daemon.fetch("/v1/runs?limit=1")).json();
  assert.equal(runs.items[0].outcome, "failed");
  assert.match(runs.items[0].error, /extraction failed after 3 attempts/);
});

Deno.test("a timeout in the collector ends the agent and the children it started", async () => {
  // The collector runs with its own narrow permissions here (no Deno.kill on a group), so this
  // also proves the fallback through the kill command.
  await using agent = await scriptedAgent([{ hang: true, grandchild: true }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent, { timeoutMs: AGENT_TIMEOUT_MIN_MS, maxAttempts: 1 }),
    env: agent.env,
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  const { agents: [pid], children: [child] } = await agent.processes();
  assert.ok(pid > 0 && child > 0, "the agent started and started its own child");
  assert.deepEqual(liveProcessGroup(pid), [], "processes of the agent's group survived");
  assert.ok(!processLives(child), `the agent's child ${child} survived the timeout`);
  assert.equal(await queueRows(daemon), 1, "the batch stays queued");
});

Deno.test("collector shutdown ends a running agent and its children at once", async () => {
  // A timeout far away: the collector must not wait it out, and must not leave the agent behind.
  await using agent = await scriptedAgent([{ hang: true, grandchild: true }]);
  const daemon = await startTestDaemon({
    settings: settingsFor(agent, { timeoutMs: 60_000, maxAttempts: 1 }),
    env: agent.env,
  });
  let pid = 0;
  let child = 0;
  try {
    await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
    const running = daemon.fetch(`/v1/extraction/flush?project_id=${PROJECT}`, { method: "POST" })
      .then((r) => r.body?.cancel(), () => {});
    ({ agents: [pid], children: [child] } = await waitFor(async () => {
      const p = await agent.processes();
      return p.children.length > 0 ? p : undefined;
    }, { what: "the agent's child" }));
    // SIGTERM, and wait until the collector has exited.
    await daemon[Symbol.asyncDispose]();
    await running;
  } finally {
    await daemon[Symbol.asyncDispose]().catch(() => {});
  }
  assert.deepEqual(liveProcessGroup(pid), [], "processes of the agent's group survived");
  assert.ok(!processLives(child), `the agent's child ${child} survived the shutdown`);
});

Deno.test("a missing agent binary is reported as such in the run record", async () => {
  const missing = "/nonexistent/kiro-learn/agent-bin";
  await using daemon = await startTestDaemon({
    settings: settingsFor({ command: [missing, "acp"] }, { maxAttempts: 1 }),
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  const runs = await (await daemon.fetch("/v1/runs?limit=1")).json();
  assert.equal(runs.items[0].outcome, "failed");
  assert.match(
    runs.items[0].error,
    /agent command not found: \/nonexistent\/kiro-learn\/agent-bin/,
  );
  assert.doesNotMatch(runs.items[0].error, /working directory/);
  assert.equal(await queueRows(daemon), 1);
});

Deno.test("a rejected session keeps the agent's error details and stderr in the run and the log", async () => {
  await using agent = await scriptedAgent([{
    rejectSessionNew: { details: "model claude-x is not available to this account" },
    stderr: "[agent] could not read settings: permission denied",
  }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent, { maxAttempts: 1 }),
    env: agent.env,
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  const runs = await (await daemon.fetch("/v1/runs?limit=1")).json();
  const error: string = runs.items[0].error;
  assert.match(error, /agent rejected session\/new: Internal error \(code -32603\)/);
  assert.match(error, /model claude-x is not available to this account/);
  assert.match(error, /could not read settings: permission denied/);
  // The collector's log holds the same run, at warn, with the same error.
  let log = "";
  for await (const entry of Deno.readDir(daemon.settings.paths.logs)) {
    log += await Deno.readTextFile(`${daemon.settings.paths.logs}/${entry.name}`);
  }
  const line = log.split("\n").filter(Boolean).map((l) => JSON.parse(l))
    .find((l) => l.msg === "extraction-run");
  assert.equal(line?.level, "warn");
  assert.equal(line?.error, error);
});

Deno.test("SIGKILL during a run, then restart: every event extracted exactly once", async () => {
  // The first run's agent never answers (its gate never opens): the kill always lands mid-run.
  await using agent = await scriptedAgent([{ reply: VALID, gate: "/nonexistent/never-opened" }, {
    reply: VALID,
  }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent),
    env: agent.env,
  });
  const events = Array.from({ length: 6 }, (_, i) => toolEvent(i));
  for (const e of events) await postJson(daemon, "/v1/events", e).then((r) => r.body?.cancel());
  await waitFor(async () => (await agent.prompts()).length > 0 || undefined, { what: "a run" });
  await daemon.kill();
  await daemon.restart();
  await waitFor(async () => (await memories(daemon)).total > 0 || undefined, {
    what: "records after restart",
  });
  await new Promise((r) => setTimeout(r, 500));
  const page = await memories(daemon);
  assert.equal(page.total, 1, "one run's records, not two");
  assert.deepEqual(new Set(page.items[0].source_event_ids), new Set(events.map((e) => e.event_id)));
  assert.equal(await queueRows(daemon), 0);
});

Deno.test("events arriving during a run are extracted by the next run", async () => {
  await using agent = await scriptedAgent([{ reply: VALID, chunks: 3, delayMs: 700 }, {
    reply: VALID,
  }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent),
    env: agent.env,
  });
  const first = [toolEvent(1), toolEvent(2), toolEvent(3), toolEvent(4), toolEvent(5)];
  for (const e of first) await postJson(daemon, "/v1/events", e).then((r) => r.body?.cancel());
  await waitFor(async () => (await agent.prompts()).length > 0 || undefined, { what: "a run" });
  const late = [toolEvent(6, "y".repeat(600)), toolEvent(7, "z".repeat(600))];
  for (const e of late) await postJson(daemon, "/v1/events", e).then((r) => r.body?.cancel());
  const page = await waitFor(async () => {
    const m = await memories(daemon);
    return m.total >= 2 ? m : undefined;
  }, { what: "the second run" });
  const covered = new Set(page.items.flatMap((r) => r.source_event_ids));
  for (const e of [...first, ...late]) assert.ok(covered.has(e.event_id));
  assert.equal(await queueRows(daemon), 0);
});

Deno.test("with no agent installed, the heuristic extractor makes searchable records", async () => {
  await using daemon = await startTestDaemon({
    settings: {
      extraction: { strategy: "auto", agentCommand: ["kiro-cli-not-installed-here"] },
      compaction: { enabled: false },
    },
  });
  const session: Event[] = [
    makeEvent({ kind: "prompt", body: { type: "text", content: "the leap year test fails" } }),
    makeEvent({
      kind: "tool_use",
      body: {
        type: "json",
        data: {
          tool_name: "execute_bash",
          tool_input: { command: "deno test src/date_parser_test.ts" },
          tool_response: {
            success: true,
            result: [{
              exit_status: "1",
              stdout: "",
              stderr: "AssertionError: Feb 29 2024 rejected",
            }],
          },
        },
      },
    }),
    makeEvent({
      kind: "tool_use",
      body: {
        type: "json",
        data: {
          tool_name: "fs_write",
          tool_input: {
            command: "str_replace",
            path: "src/date_parser.ts",
            old_str: "% 100",
            new_str: "% 400",
          },
          tool_response: { success: true, result: [""] },
        },
      },
    }),
    makeEvent({
      kind: "tool_use",
      body: {
        type: "json",
        data: {
          tool_name: "execute_bash",
          tool_input: { command: "deno test src/date_parser_test.ts" },
          tool_response: { success: true, result: [{ exit_status: "0", stdout: "ok | 3 passed" }] },
        },
      },
    }),
    makeEvent({
      kind: "session_summary",
      body: { type: "text", content: "Fixed the leap year rule in the date parser." },
    }),
  ];
  for (const e of session) await postJson(daemon, "/v1/events", e).then((r) => r.body?.cancel());
  await flush(daemon);
  const page = await memories(daemon);
  assert.ok(page.total >= 3, `${page.total} records`);
  assert.ok(page.items.every((r) => r.strategy === "heuristic"));
  const search = async (q: string) =>
    await (await daemon.fetch(
      `/v1/memories/search?namespace=${TEST_NAMESPACE}&query=${encodeURIComponent(q)}`,
    )).json();
  const byFile = await search("date_parser.ts");
  assert.ok(byFile.length > 0, "the edited file is findable");
  const byFailure = await search("failing date_parser_test");
  assert.ok(byFailure.some((r: { observation_type: string }) => r.observation_type === "error"));
  const stats = await (await daemon.fetch("/v1/stats")).json();
  assert.equal(stats.extraction.strategy.effective, "heuristic");
});

Deno.test("the daily LLM cap is honoured exactly; past it, runs use the heuristic extractor", async () => {
  await using agent = await scriptedAgent([{ reply: VALID }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent, {
      dailyBudgetChars: PROMPT_OVERHEAD + 6000,
      promptCapBytes: 4096,
    }),
    env: agent.env,
  });
  for (let i = 0; i < 12; i++) {
    await postJson(daemon, "/v1/events", toolEvent(i, "w".repeat(700))).then((r) =>
      r.body?.cancel()
    );
  }
  await flush(daemon);
  const stats = await (await daemon.fetch("/v1/stats")).json();
  const spent = stats.extraction.llm_today;
  assert.ok(spent.chars_sent > 0, "the first chunk used the model");
  assert.ok(
    spent.chars_sent <= PROMPT_OVERHEAD + 6000,
    `spent ${spent.chars_sent} of a ${PROMPT_OVERHEAD + 6000} cap`,
  );
  assert.equal(spent.budget_limited, true);
  const strategies = new Set((await memories(daemon)).items.map((r) => r.strategy));
  assert.deepEqual(strategies, new Set(["llm-summary", "heuristic"]));
  assert.equal(await queueRows(daemon), 0);
  const runs = await (await daemon.fetch("/v1/runs?limit=1")).json();
  assert.equal(runs.items[0].details.budget_limited, true);
});

Deno.test("a garbage retry that would pass the cap is never started; the chunk goes heuristic", async () => {
  await using agent = await scriptedAgent([{ reply: GARBAGE }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent, {
      dailyBudgetChars: PROMPT_OVERHEAD + 2500,
      sizeThresholdBytes: 16_777_216,
    }),
    env: agent.env,
  });
  // One prompt of ~1,900 characters (besides the instructions) fits the cap; a second would not.
  const big = toolEvent(1, "q".repeat(1500));
  await postJson(daemon, "/v1/events", big).then((r) => r.body?.cancel());
  await flush(daemon);
  const prompts = await agent.prompts();
  const observations = prompts[0].text.length - PROMPT_OVERHEAD;
  assert.ok(observations > 1250 && observations <= 2500, `${observations} characters`);
  assert.equal(prompts.length, 1, "only the session that fit the cap was started");
  const spent = (await (await daemon.fetch("/v1/stats")).json()).extraction.llm_today;
  // The session that started is counted whole, as it crossed the wire: its prompt and the ACP
  // framing around it, and the agent's reply; no session started once that passed the cap.
  assert.ok(spent.chars_sent > prompts[0].text.length, `sent ${spent.chars_sent}`);
  assert.ok(spent.chars_received > GARBAGE.length, `received ${spent.chars_received}`);
  assert.equal(spent.budget_limited, true);
  const page = await memories(daemon);
  assert.ok(page.total > 0);
  assert.ok(page.items.every((r) => r.strategy === "heuristic"));
  assert.equal(await queueRows(daemon), 0);
});

/** The last run's spend, and today's as the budget counts it. */
async function spendOfLastRun(daemon: TestDaemon) {
  const [run] = (await (await daemon.fetch("/v1/runs?limit=1")).json()).items;
  const today = (await (await daemon.fetch("/v1/stats")).json()).extraction.llm_today;
  return { run, today };
}

Deno.test("a session refused before its prompt crossed charges the day only the handshake", async () => {
  await using agent = await scriptedAgent([{ rejectSessionNew: "no sessions today" }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent, { maxAttempts: 1, sizeThresholdBytes: 16_777_216 }),
    env: agent.env,
  });
  const prompt = PROMPT_OVERHEAD + 20_000;
  await postJson(daemon, "/v1/events", toolEvent(1, "p".repeat(20_000))).then((r) =>
    r.body?.cancel()
  );
  await flush(daemon);
  const { run, today } = await spendOfLastRun(daemon);
  assert.equal(run.outcome, "failed");
  assert.match(run.error, /rejected session\/new/);
  assert.equal((await agent.prompts()).length, 0, "the prompt never reached the agent");
  // `initialize` and `session/new` crossed (a few hundred bytes each way), the prompt did not.
  assert.ok(run.chars_sent > 0 && run.chars_sent < 2000, `sent ${run.chars_sent} of ${prompt}`);
  assert.ok(run.chars_received > 0, `received ${run.chars_received}`);
  // The day's counter says the same: the prompt's reservation was given back.
  assert.equal(today.chars_sent, run.chars_sent);
  assert.equal(today.chars_received, run.chars_received);
});

Deno.test("a session that dies mid-reply counts the prompt it sent and the reply that came back", async () => {
  await using agent = await scriptedAgent([{ crashAfterChunks: 5 }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent, { maxAttempts: 1, sizeThresholdBytes: 16_777_216 }),
    env: agent.env,
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  const { run, today } = await spendOfLastRun(daemon);
  assert.equal(run.outcome, "failed");
  assert.match(run.error, /exited with code 1 before answering/);
  const [prompt] = await agent.prompts();
  assert.ok(run.chars_sent > prompt.text.length, `sent ${run.chars_sent}`);
  // Five `session/update` chunks (over 100 bytes each with their framing) and the handshake.
  assert.ok(run.chars_received > 500, `received ${run.chars_received}`);
  assert.equal(today.chars_sent, run.chars_sent);
  assert.equal(today.chars_received, run.chars_received);
});

Deno.test("strategy auto with an absolute agent path uses the agent", async () => {
  await using agent = await scriptedAgent([{ reply: VALID }]);
  assert.ok(agent.command[0].startsWith("/"), "the scripted agent runs by absolute path");
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent, { strategy: "auto", sizeThresholdBytes: 16_777_216 }),
    env: agent.env,
  });
  const stats = await (await daemon.fetch("/v1/stats")).json();
  assert.deepEqual(stats.extraction.strategy, {
    configured: "auto",
    effective: "acp",
    agent_found: true,
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  assert.equal((await agent.prompts()).length, 1);
  const page = await memories(daemon);
  assert.ok(page.items.length > 0 && page.items.every((r) => r.strategy === "llm-summary"));
});

Deno.test("strategy auto with an absolute path to nothing falls back to the heuristic", async () => {
  await using daemon = await startTestDaemon({
    settings: {
      extraction: { strategy: "auto", agentCommand: ["/nonexistent/kiro-learn-agent"] },
      compaction: { enabled: false },
    },
  });
  const stats = await (await daemon.fetch("/v1/stats")).json();
  assert.equal(stats.extraction.strategy.effective, "heuristic");
  assert.equal(stats.extraction.strategy.agent_found, false);
});

Deno.test("an agent gets only the environment extraction.agentEnv allows", async () => {
  await using agent = await scriptedAgent([{ reply: VALID }]);
  await using daemon = await startTestDaemon({
    settings: settingsFor(agent, {
      sizeThresholdBytes: 16_777_216,
      agentEnv: ["PATH", "HOME", "KIRO_LEARN_TEST_ALLOWED"],
    }),
    env: {
      ...agent.env,
      KIRO_LEARN_TEST_ALLOWED: "yes",
      KIRO_LEARN_TEST_SECRET: "the collector's environment, not the agent's",
    },
  });
  await postJson(daemon, "/v1/events", toolEvent(1)).then((r) => r.body?.cancel());
  await flush(daemon);
  const [prompt] = await agent.prompts();
  // Deno itself may add a variable or two to its child (none from the collector's environment).
  const names = prompt.envNames.filter((n) => !n.startsWith("DENO_") && n !== "RUST_BACKTRACE");
  // Besides the allowed ones, kiro-learn's own: the marker, and git's ceiling (the data dir, so
  // git run in the agent folder finds no repository around it).
  assert.deepEqual(names, [
    "GIT_CEILING_DIRECTORIES",
    "HOME",
    "KIRO_LEARN_INTERNAL",
    "KIRO_LEARN_TEST_ALLOWED",
    "PATH",
  ]);
  assert.equal(prompt.internal, "1");
});

// A real Claude Code session (shims/testdata/claude_code/transcript_tools.jsonl: one turn of six
// tool uses and the answer), as Claude Code saved it.
const TOOLS_SESSION =
  new URL("../../../shims/testdata/claude_code/transcript_tools.jsonl", import.meta.url)
    .pathname;
const TOOLS_SESSION_ID = "20079cb9-aa8b-482c-9f48-6cbdcf5a5bee";

Deno.test("heuristic: thirteen identical sessions of one project become one session's records", async () => {
  await using daemon = await startTestDaemon({
    settings: {
      extraction: { strategy: "heuristic", idleMs: 300_000, sizeThresholdBytes: 16_777_216 },
      compaction: { enabled: false },
    },
  });
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-home-" }));
  try {
    const project = await seedRepo(`${home}/shop-api`);
    await runGit(project, "remote", "add", "origin", "https://github.com/example/shop-api.git");
    const identity = resolveProject(project, { actor: currentActor(), home });
    // Where Claude Code keeps the project's transcripts (its path, non-alphanumerics as "-").
    const transcripts = `${home}/.claude/projects/${project.replace(/[^a-zA-Z0-9]/g, "-")}`;
    await Deno.mkdir(transcripts, { recursive: true });
    const text = (await Deno.readTextFile(TOOLS_SESSION)).replaceAll("${PROJECT}", project);
    // The same session thirteen times over, each under a session id of its own and an hour
    // after the one before (as running one task again would give): the first alone, then
    // twelve more in one run.
    const session = async (n: number) => {
      const id = `20079cb9-aa8b-482c-9f48-${String(n).padStart(12, "0")}`;
      const shifted = text.replaceAll(TOOLS_SESSION_ID, id).replace(
        /"timestamp":"([^"]+)"/g,
        (_, at: string) =>
          `"timestamp":"${new Date(Date.parse(at) + n * 3_600_000).toISOString()}"`,
      );
      await Deno.writeTextFile(`${transcripts}/${id}.jsonl`, shifted);
    };
    const importAndExtract = async () => {
      const out = await runKiroLearn(["import", "claude-code"], {
        env: { ...daemon.env, HOME: home },
        cwd: project,
      });
      assert.equal(out.code, 0, processText(out));
      const res = await daemon.fetch(`/v1/extraction/flush?project_id=${identity.project_id}`, {
        method: "POST",
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    };
    const titles = async () =>
      (await (await daemon.fetch(`/v1/memories?limit=500&namespace=${identity.namespace}`)).json())
        .items.map((r: { title: string }) => r.title).sort();
    await session(1);
    await importAndExtract();
    const once = await titles();
    assert.ok(once.length >= 2, `one session's records: ${once.join(" | ")}`);
    for (let n = 2; n <= 13; n++) await session(n);
    await importAndExtract();
    const events =
      await (await daemon.fetch(`/v1/events?limit=500&namespace=${identity.namespace}`))
        .json();
    assert.equal(events.items.length, 13 * 8, "every session's events are stored");
    assert.deepEqual(await titles(), once, "thirteen identical sessions, one session's records");
    const [run] = (await (await daemon.fetch("/v1/runs?limit=1")).json()).items;
    assert.equal(run.outcome, "ok");
    assert.equal(run.details.reconcile.identical_skipped, 12 * once.length);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
