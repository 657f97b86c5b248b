// Reconciliation through the real collector: the daemon launched as `serve` launches it, the
// use-lite embedder, a scripted compressor and a scripted judge (real ACP processes).
import assert from "node:assert/strict";
import type { Event, MemoryRecord } from "@kiro-learn/core/schemas";
import { AGENT_TIMEOUT_MIN_MS } from "@kiro-learn/core/settings";
import { openSqliteStorage } from "@kiro-learn/core/storage";
import { makeFsWriteEvent, makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import {
  postJson,
  type ScriptedAgent,
  scriptedAgent,
  startTestDaemon,
  type TestDaemon,
  waitFor,
} from "../../tooling/testing/mod.ts";
import { agentCommand } from "../../tooling/testing/mod.ts";

const PROJECT = TEST_NAMESPACE.split("/")[4];

const TITLE = "Access tokens expire after one hour";
const SUMMARY =
  "The API issues access JWTs that expire after 3600 seconds, and the web client refreshes " +
  "them when a request comes back with 401.";
const CANDIDATE = `<memory_record type="discovery">
<title>${TITLE}</title>
<summary>${SUMMARY}</summary>
<fact>JWT_ACCESS_TTL is 3600 seconds</fact>
<concept>auth</concept>
</memory_record>`;

function toolEvent(n: number): Event {
  return makeFsWriteEvent({
    command: "create",
    path: `web/src/api/refresh_${n}.ts`,
    file_text: "x",
  });
}

function merge(ids: string[]): string {
  return `<merge>${ids.map((id) => `<merged_record_id>${id}</merged_record_id>`).join("")}
<title>Access JWTs last one hour and are refreshed on 401</title>
<summary>Access tokens expire after 3600 s; the client refreshes them on a 401 response.</summary>
<facts><fact>JWT_ACCESS_TTL is 3600 seconds</fact></facts>
<concepts><concept>auth</concept></concepts></merge>`;
}

async function stats(daemon: TestDaemon): Promise<Record<string, unknown>> {
  return await (await daemon.fetch("/v1/stats")).json();
}

async function records(daemon: TestDaemon): Promise<MemoryRecord[]> {
  const body = await (await daemon.fetch("/v1/memories?limit=500")).json();
  return body.items;
}

async function flush(daemon: TestDaemon, n: number): Promise<void> {
  const posted = await postJson(daemon, "/v1/events", toolEvent(n));
  assert.equal(posted.status, 200);
  await posted.body?.cancel();
  const res = await daemon.fetch(`/v1/extraction/flush?project_id=${PROJECT}`, { method: "POST" });
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

async function lastRun(daemon: TestDaemon): Promise<Record<string, unknown>> {
  const runs = await (await daemon.fetch("/v1/runs?limit=1")).json();
  return runs.items[0];
}

async function setup(
  judge: ScriptedAgent,
): Promise<{ daemon: TestDaemon; compressor: ScriptedAgent }> {
  const compressor = await scriptedAgent([{ reply: CANDIDATE }]);
  const daemon = await startTestDaemon({
    settings: {
      extraction: {
        strategy: "acp",
        agentCommand: agentCommand(compressor),
        idleMs: 300_000,
        sizeThresholdBytes: 16_777_216,
        timeoutMs: AGENT_TIMEOUT_MIN_MS,
      },
      reconciliation: { agentCommand: agentCommand(judge), judgeTimeoutMs: AGENT_TIMEOUT_MIN_MS },
      compaction: { enabled: false },
      embedding: { backend: "use-lite" },
    },
  });
  await waitFor(async () => {
    const s = await stats(daemon);
    return (s.embedding as { state: string }).state === "ready" || undefined;
  }, { timeoutMs: 60_000, what: "the embedder" });
  return { daemon, compressor };
}

/** Stores neighbours through the API and waits until the backfill has embedded them. */
async function seedNeighbours(daemon: TestDaemon, list: MemoryRecord[]): Promise<void> {
  for (const record of list) {
    const res = await postJson(daemon, "/v1/memories", record);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  await waitFor(async () => {
    const s = await stats(daemon);
    return (s.embeddings_present as number) >= list.length || undefined;
  }, { timeoutMs: 60_000, what: "neighbour embeddings" });
}

Deno.test("merge, keep-separate, garbage and timeout through the real collector", async () => {
  const judge = await scriptedAgent([{ reply: "<keep_separate/>" }]);
  const { daemon } = await setup(judge);
  await using _ = daemon;
  const n1 = makeRecord({ title: TITLE, summary: SUMMARY, strategy: "mcp_observation" });
  const n2 = makeRecord({
    title: "Access tokens expire after an hour",
    summary: "The API's access JWTs expire after 3600 seconds; the web client refreshes on 401.",
    strategy: "mcp_observation",
  });
  await seedNeighbours(daemon, [n1, n2]);

  // 1. Merge: the judge fuses the two stored neighbours; the uncited candidate is kept.
  await judge.setScript([{ reply: merge([n1.record_id, n2.record_id]) }]);
  await flush(daemon, 1);
  let all = await records(daemon);
  assert.ok(!all.some((r) => r.record_id === n1.record_id || r.record_id === n2.record_id));
  const summary = all.find((r) => r.strategy === "llm-reconciled");
  assert.ok(summary, JSON.stringify(all.map((r) => r.title)));
  assert.deepEqual(summary.source_event_ids, [...n1.source_event_ids, ...n2.source_event_ids]);
  assert.ok(all.some((r) => r.strategy === "llm-summary" && r.title === TITLE), "candidate kept");
  let prompts = await judge.prompts();
  assert.equal(prompts.length, 1);
  assert.match(prompts[0].text, new RegExp(`<neighbor record_id="${n1.record_id}"`));
  assert.equal(prompts[0].internal, "1");
  const db = openSqliteStorage(daemon.settings.paths.db);
  try {
    const [merged] = await db.listMerges({ namespace: TEST_NAMESPACE, limit: 5 });
    assert.equal(merged.summary_id, summary.record_id);
    assert.deepEqual(merged.replaced_ids, [n1.record_id, n2.record_id]);
  } finally {
    db.close();
  }
  const viaApi = await (await daemon.fetch(
    `/v1/merges?namespace=${encodeURIComponent(TEST_NAMESPACE)}&summary_id=${summary.record_id}`,
  )).json();
  assert.deepEqual(viaApi.items[0].replaced_ids, [n1.record_id, n2.record_id]);
  assert.equal(viaApi.items[0].replaced[0].title, n1.title, "the replaced records, as they were");
  const run = await lastRun(daemon);
  const details = run.details as { reconcile: Record<string, number> };
  assert.equal(details.reconcile.merges_committed, 1);
  assert.equal(details.reconcile.records_deleted, 2);

  // 2. Keep-separate: the new candidate is stored, nothing deleted.
  await judge.setScript([{ reply: "<keep_separate/>" }]);
  const before = (await records(daemon)).length;
  await flush(daemon, 2);
  all = await records(daemon);
  assert.equal(all.length, before + 1);
  assert.equal((await judge.prompts()).length, 2);

  // 3. Garbage twice: one retry in a fresh session, then keep-separate.
  await judge.setScript([{ reply: "Sure, these look alike to me!" }]);
  await flush(daemon, 3);
  assert.equal((await records(daemon)).length, before + 2);
  assert.equal((await judge.prompts()).length, 4);

  // 4. Timeout: terminal, no retry, keep-separate (judge_timeout below says why it gave up).
  await judge.setScript([{ hang: true }]);
  await flush(daemon, 4);
  assert.equal((await records(daemon)).length, before + 3);
  prompts = await judge.prompts();
  assert.equal(prompts.length, 5, "no retry after a timeout");
  const reconcile = ((await lastRun(daemon)).details as { reconcile: Record<string, number> })
    .reconcile;
  assert.equal(reconcile.judge_timeout, 1);
});

Deno.test("judge breaker: three failures, then the next chunk commits without the judge", async () => {
  const judge = await scriptedAgent([{ reply: "not xml at all" }]);
  const { daemon } = await setup(judge);
  await using _ = daemon;
  await seedNeighbours(daemon, [makeRecord({ title: TITLE, summary: SUMMARY })]);
  for (let i = 1; i <= 3; i++) await flush(daemon, i);
  assert.equal((await judge.prompts()).length, 6, "three clusters, two sessions each");
  const s = await stats(daemon);
  const breakers = (s.reconciliation as { judge_breakers: { project_id: string; state: string }[] })
    .judge_breakers;
  assert.deepEqual(breakers.map((b) => [b.project_id, b.state]), [[PROJECT, "open"]]);
  await flush(daemon, 4);
  assert.equal((await judge.prompts()).length, 6, "the judge was not asked");
  const reconcile = ((await lastRun(daemon)).details as { reconcile: Record<string, number> })
    .reconcile;
  assert.equal(reconcile.breaker_open_chunks, 1);
  assert.equal(reconcile.direct_committed, 1);
  // Nothing was dropped: the neighbour and four candidates.
  assert.equal((await records(daemon)).length, 5);
});
