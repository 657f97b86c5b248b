// Reconciliation in-process: a real SqliteStorage, the real ACP client, a scripted judge agent
// (a real ACP process), and a deterministic fake embedder whose vectors the tests choose.
import assert from "node:assert/strict";
import { RECONCILER_AGENT } from "@kiro-learn/agents";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { cosineSimilarity } from "@kiro-learn/core/search";
import {
  openSqliteStorage,
  type RecordWithEmbedding,
  type SqliteStorage,
} from "@kiro-learn/core/storage";
import { failOnHang, makeEvent, makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import type { ChunkToCommit } from "../extraction/mod.ts";
import { Semaphore } from "../llm/mod.ts";
import { acpRunner } from "../extraction/mod.ts";
import { type ScriptedAgent, scriptedAgent, type ScriptStep } from "../../tooling/testing/mod.ts";
import { CircuitBreaker } from "../runtime/mod.ts";
import { createReconciler, type ReconcilerOptions } from "./reconcile.ts";
import { agentCommand } from "../../tooling/testing/mod.ts";

const PROJECT = TEST_NAMESPACE.split("/")[4];
const MODEL = "fake@1";

/** Unit-ish vectors chosen per title: near duplicates get near vectors. */
function vec(...xs: number[]): Float32Array {
  return Float32Array.from(xs);
}
const A = vec(1, 0, 0, 0);
const A2 = vec(0.95, 0.31, 0, 0); // cos(A, A2) ≈ 0.95
const B = vec(0, 0, 1, 0);

interface Harness {
  /** The harness's temp dir. */
  dir: string;
  storage: SqliteStorage;
  judge: ScriptedAgent;
  breaker: CircuitBreaker;
  commit(
    records: RecordWithEmbedding[],
    options?: { strategy?: MemoryRecord["strategy"] },
  ): ReturnType<
    ReturnType<typeof createReconciler>["commitChunk"]
  >;
  /** Stores a neighbour record with an embedding. */
  neighbour(
    title: string,
    vector: Float32Array,
    extra?: Partial<MemoryRecord>,
  ): Promise<MemoryRecord>;
  /** A candidate (not stored) with queue rows of its own. */
  candidate(
    title: string,
    vector: Float32Array | null,
    extra?: Partial<MemoryRecord>,
  ): RecordWithEmbedding;
  [Symbol.asyncDispose](): Promise<void>;
}

async function harness(
  steps: ScriptStep[],
  options: Partial<ReconcilerOptions> & { cooldownMs?: number } = {},
): Promise<Harness> {
  const dir = await Deno.makeTempDir();
  const storage = openSqliteStorage(`${dir}/test.db`);
  const judge = await scriptedAgent(steps);
  const breaker = options.breaker ??
    new CircuitBreaker({ threshold: 3, cooldownMs: options.cooldownMs ?? 60_000 });
  const reconciler = createReconciler({
    storage,
    enabled: true,
    command: agentCommand(judge),
    // Generous: a judge that answers must not time out on a loaded machine (the timeout test
    // sets its own).
    judgeTimeoutMs: 60_000,
    clusterThreshold: 0.85,
    neighborThreshold: 0.8,
    neighborPoolMax: 10,
    breaker,
    searchNeighbors: async (ns, query, { k, minSimilarity }) =>
      (await storage.listEmbeddings(ns, { model: MODEL }))
        .map((e) => ({ record_id: e.record_id, similarity: cosineSimilarity(query, e.vector) }))
        .filter((h) => h.similarity >= minSimilarity)
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, k),
    embed: (records) =>
      Promise.resolve(records.map((record) => ({
        record,
        embedding: { model: MODEL, vector: vec(0.7, 0.7, 0.1, 0) },
      }))),
    ...options,
  });
  const semaphore = new Semaphore(2);
  return {
    dir,
    storage,
    judge,
    breaker,
    async commit(records, opts = {}) {
      const events = records.flatMap((r) => r.record.source_event_ids);
      const before = new Set((await storage.snapshotQueue(PROJECT)).map((e) => e.seq));
      for (const id of events) {
        await storage.ingestEvent(makeEvent({ event_id: id, kind: "tool_use" }), {
          project_id: PROJECT,
          enqueue: true,
        });
      }
      const seqs = (await storage.snapshotQueue(PROJECT)).map((e) => e.seq).filter((s) =>
        !before.has(s)
      );
      const chunk: ChunkToCommit = {
        projectId: PROJECT,
        namespace: TEST_NAMESPACE,
        strategy: opts.strategy ?? "llm-summary",
        records,
        consumedSeqs: seqs,
      };
      return await reconciler.commitChunk(chunk, {
        runner: acpRunner,
        semaphore,
        dailyBudgetChars: 1_000_000_000,
      });
    },
    async neighbour(title, vector, extra = {}) {
      const record = makeRecord({
        title,
        summary: `${title}.`,
        created_at: "2025-01-01T00:00:00.000Z",
        ...extra,
      });
      await storage.putRecord(record, { embedding: { model: MODEL, vector } });
      return record;
    },
    candidate(title, vector, extra = {}) {
      const record = makeRecord({ title, summary: `${title}.`, ...extra });
      return { record, embedding: vector ? { model: MODEL, vector } : null };
    },
    async [Symbol.asyncDispose]() {
      storage.close();
      await Deno.remove(dir, { recursive: true });
      await judge[Symbol.asyncDispose]();
    },
  };
}

function merge(ids: string[], title = "Merged title", extra = ""): string {
  return `<merge>${ids.map((id) => `<merged_record_id>${id}</merged_record_id>`).join("")}
<title>${title}</title><summary>One record that says everything the merged ones said.</summary>
<facts><fact>merged fact</fact></facts><concepts><concept>merged</concept></concepts>${extra}</merge>`;
}

async function all(storage: SqliteStorage): Promise<MemoryRecord[]> {
  return (await storage.listRecords({ limit: 100, offset: 0 })).items;
}

Deno.test("merge: neighbour replaced by an llm-reconciled summary, uncited member kept, merge recorded", async () => {
  // The judge's ids are known up front: the candidates are built before the script is written.
  await using h = await harness([]);
  const n = await h.neighbour("Refresh tokens expire after an hour", A);
  const c1 = h.candidate("Access token lifetime is sixty minutes", A2, {
    observation_type: "error",
  });
  const c2 = h.candidate("Token lifetime, again", A2);
  await h.judge.setScript([{ reply: merge([c1.record.record_id, n.record_id, "mr_UNKNOWN"]) }]);
  const out = await h.commit([c1, c2]);

  const records = await all(h.storage);
  assert.equal((await h.storage.getRecords([n.record_id])).length, 0, "neighbour deleted");
  const summary = records.find((r) => r.strategy === "llm-reconciled")!;
  assert.ok(summary, "summary stored");
  assert.equal(summary.title, "Merged title");
  assert.equal(summary.observation_type, "error", "the first resolved member's type");
  assert.deepEqual(summary.source_event_ids, [
    ...c1.record.source_event_ids,
    ...n.source_event_ids,
  ]);
  assert.ok(records.some((r) => r.record_id === c2.record.record_id), "uncited member committed");
  assert.ok(!records.some((r) => r.record_id === c1.record.record_id), "cited member merged");
  assert.equal(records.length, 2);
  assert.deepEqual(await h.storage.snapshotQueue(PROJECT), [], "queue rows consumed");
  const [row] = await h.storage.listMerges({ limit: 5 });
  assert.equal(row.summary_id, summary.record_id);
  assert.deepEqual(row.replaced_ids, [c1.record.record_id, n.record_id]);
  assert.equal(row.replaced[1].title, n.title, "the replaced neighbour as it was");
  // The summary got its embedding before the transaction.
  assert.equal((await h.storage.listEmbeddings(TEST_NAMESPACE, { model: MODEL })).length, 2);
  assert.deepEqual(out.deleted, [n.record_id]);
  assert.deepEqual(
    new Set(out.stored.map((r) => r.record_id)),
    new Set(records.map((r) => r.record_id)),
  );
  assert.equal(out.details.merges_committed, 1);
  assert.equal(out.details.judge_attempts, 1);
  // What the judge saw: both members as one cluster, the neighbour with its similarity.
  const [prompt] = await h.judge.prompts();
  // The reconciler's whole instructions reached the agent, ahead of the request: a generic ACP
  // agent never sees the kiro-learn-reconciler agent definition.
  assert.ok(prompt.text.includes(RECONCILER_AGENT.prompt), "the reconciler's instructions");
  const request = prompt.text.slice(prompt.text.lastIndexOf("</instructions>"));
  assert.ok(prompt.text.indexOf(RECONCILER_AGENT.prompt) < prompt.text.length - request.length);
  assert.match(request, /<reconciliation_request>/);
  assert.equal(request.match(/<candidate record_id=/g)?.length, 2);
  assert.match(
    request,
    new RegExp(`<neighbor record_id="${n.record_id}" similarity="0\\.9\\d{3}">`),
  );
  assert.equal(prompt.internal, "1");
});

Deno.test("merge of two neighbours without citing the candidate keeps the candidate", async () => {
  await using h = await harness([]);
  const n1 = await h.neighbour("CI cache key uses the lockfile hash", A);
  const n2 = await h.neighbour("CI caches node_modules by lockfile", A2);
  const c = h.candidate("Cache restore in CI", A);
  await h.judge.setScript([{
    reply: merge([n1.record_id, n2.record_id], "CI cache keyed by lockfile"),
  }]);
  const out = await h.commit([c]);
  const titles = (await all(h.storage)).map((r) => r.title).sort();
  assert.deepEqual(titles, ["CI cache keyed by lockfile", "Cache restore in CI"]);
  assert.deepEqual(new Set(out.deleted), new Set([n1.record_id, n2.record_id]));
});

Deno.test("keep-separate: everything committed, nothing deleted", async () => {
  await using h = await harness([{ reply: "<keep_separate/>" }]);
  const n = await h.neighbour("Refresh tokens expire after an hour", A);
  const c = h.candidate("Access token lifetime", A2);
  const out = await h.commit([c]);
  assert.equal((await all(h.storage)).length, 2);
  assert.deepEqual(out.deleted, []);
  assert.equal(out.details.keep_separate, 1);
  assert.equal((await h.storage.listMerges({ limit: 5 })).length, 0);
  assert.equal((await h.judge.prompts()).length, 1);
  assert.equal(h.breaker.state(PROJECT), "closed");
  void n;
});

Deno.test("no neighbours, null embeddings and disabled reconciliation never ask the judge", async () => {
  await using h = await harness([{ reply: "<keep_separate/>" }]);
  await h.neighbour("Something unrelated", B);
  const out = await h.commit([h.candidate("Token lifetime", A), h.candidate("No vector", null)]);
  assert.equal(out.details.no_neighbors, 1);
  assert.equal(out.details.null_centroid, 1);
  assert.equal((await h.judge.prompts()).length, 0);
  assert.equal((await all(h.storage)).length, 3);
  const heuristic = await h.commit([h.candidate("Token lifetime 2", A)], { strategy: "heuristic" });
  assert.equal(heuristic.details.direct_committed, 1);
  assert.equal((await h.judge.prompts()).length, 0);
});

Deno.test("reconciliation disabled: direct commit, same records as commitExtraction", async () => {
  await using h = await harness([{ reply: "<keep_separate/>" }], { enabled: false });
  await h.neighbour("Refresh tokens expire after an hour", A);
  const c = h.candidate("Access token lifetime", A2);
  const out = await h.commit([c]);
  assert.equal(out.details.direct_committed, 1);
  assert.deepEqual(out.stored, [c.record]);
  assert.deepEqual((await h.storage.getRecords([c.record.record_id]))[0], c.record);
  assert.equal((await h.judge.prompts()).length, 0);
  assert.deepEqual(await h.storage.snapshotQueue(PROJECT), []);
});

Deno.test("garbage judge: one retry in a fresh session, then keep-separate", async () => {
  await using h = await harness([{ reply: "Sure! These look similar to me." }]);
  await h.neighbour("Refresh tokens expire after an hour", A);
  const c = h.candidate("Access token lifetime", A2);
  const out = await h.commit([c]);
  assert.equal((await h.judge.prompts()).length, 2, "two sessions");
  assert.equal(out.details.judge_failures, 1);
  assert.equal(out.details.judge_garbage, 1);
  assert.equal((await all(h.storage)).length, 2, "candidate committed, neighbour kept");
  assert.deepEqual(await h.storage.snapshotQueue(PROJECT), []);
  assert.equal(h.breaker.state(PROJECT), "closed", "one failure does not open it");
});

Deno.test("garbage then a valid answer: the retry's answer is used", async () => {
  await using h = await harness([]);
  const n = await h.neighbour("Refresh tokens expire after an hour", A);
  const c = h.candidate("Access token lifetime", A2);
  await h.judge.setScript([{ reply: "not xml" }, {
    reply: merge([c.record.record_id, n.record_id]),
  }]);
  const out = await h.commit([c]);
  assert.equal(out.details.judge_attempts, 2);
  assert.equal(out.details.merges_committed, 1);
});

Deno.test("judge timeout: terminal, no retry, keep-separate", async () => {
  await using h = await harness([{ hang: true }], { judgeTimeoutMs: 1500 });
  await h.neighbour("Refresh tokens expire after an hour", A);
  const c = h.candidate("Access token lifetime", A2);
  // A hanging judge must not hang the commit: the hard limit only turns a hang into a failure.
  const out = await failOnHang(h.commit([c]), "a commit whose judge hangs");
  assert.equal((await h.judge.prompts()).length, 1, "no retry after a timeout");
  assert.equal(out.details.judge_timeout, 1);
  assert.equal((await all(h.storage)).length, 2);
});

Deno.test("breaker: three failed clusters open it, the next chunk commits directly, a probe closes it", async () => {
  let clock = 1_000_000;
  const breaker = new CircuitBreaker({ threshold: 3, cooldownMs: 10_000, now: () => clock });
  await using h = await harness([{ reply: "garbage" }], { breaker });
  await h.neighbour("Refresh tokens expire after an hour", A);
  await h.neighbour("Migrations run in a transaction", B);
  // Three clusters with neighbours in one chunk: A-ish, B-ish, and another B-ish far from A.
  const first = await h.commit([
    h.candidate("token one", A),
    h.candidate("migration one", B),
    h.candidate("migration two", vec(0, 0.3, 0.95, 0)),
  ]);
  assert.equal(first.details.judge_failures, 2);
  assert.equal(h.breaker.state(PROJECT), "closed");
  const second = await h.commit([h.candidate("token two", A2), h.candidate("token three", A)]);
  assert.equal(second.details.judge_failures, 1);
  assert.equal(h.breaker.state(PROJECT), "open");
  const prompts = (await h.judge.prompts()).length;
  assert.equal(prompts, 6, "three clusters, two sessions each");
  const third = await h.commit([h.candidate("token four", A)]);
  assert.equal(third.details.breaker_open_chunks, 1);
  assert.equal(third.details.direct_committed, 1);
  assert.equal((await h.judge.prompts()).length, prompts, "judge not asked while open");
  // After the cool-down a probe goes through; a valid answer closes the breaker.
  clock += 10_001;
  assert.equal(h.breaker.state(PROJECT), "half_open");
  await h.judge.setScript([{ reply: "<keep_separate/>" }]);
  const fourth = await h.commit([h.candidate("token five", A)]);
  assert.equal(fourth.details.keep_separate, 1);
  assert.equal(h.breaker.state(PROJECT), "closed");
  // Nothing was ever dropped: 2 neighbours + 7 candidates.
  assert.equal((await all(h.storage)).length, 9);
});

Deno.test("a neighbour forgotten while the judge thinks: the merge is abandoned, members kept", async () => {
  await using h = await harness([]);
  const n = await h.neighbour("Refresh tokens expire after an hour", A);
  const c = h.candidate("Access token lifetime", A2);
  // The judge answers only once the test opens its gate: the neighbour is forgotten while the
  // judge session runs however slow the machine is.
  const gate = `${h.dir}/judge-gate`;
  await h.judge.setScript([{ reply: merge([c.record.record_id, n.record_id]), gate }]);
  const pending = h.commit([c]);
  while ((await h.judge.prompts()).length === 0) await new Promise((r) => setTimeout(r, 50));
  await h.storage.deleteRecords([n.record_id]);
  await Deno.writeTextFile(gate, "");
  const out = await pending;
  assert.equal(out.details.merges_abandoned, 1);
  const records = await all(h.storage);
  assert.deepEqual(records.map((r) => r.record_id), [c.record.record_id]);
  assert.deepEqual(await h.storage.snapshotQueue(PROJECT), []);
  assert.equal((await h.storage.listMerges({ limit: 5 })).length, 0);
});

Deno.test("two clusters may not both replace one neighbour", async () => {
  await using h = await harness([]);
  const n = await h.neighbour("Refresh tokens expire after an hour", vec(1, 0, 0.2, 0));
  const c1 = h.candidate("token a", A);
  const c2 = h.candidate("token b", vec(0.8, 0, 0.6, 0)); // near n, not ≥ 0.85 to c1
  await h.judge.setScript([
    { reply: merge([c1.record.record_id, n.record_id], "first") },
    { reply: merge([c2.record.record_id, n.record_id], "second") },
  ]);
  const out = await h.commit([c1, c2]);
  assert.equal(out.details.clusters, 2);
  assert.equal(out.details.merges_committed, 1);
  const prompts = await h.judge.prompts();
  assert.equal(prompts.length, 1, "the second cluster had no unclaimed neighbour left");
  assert.equal((await all(h.storage)).length, 2);
});

Deno.test("judge output is bounded like extraction output", async () => {
  await using h = await harness([]);
  const n = await h.neighbour("Refresh tokens expire after an hour", A);
  const c = h.candidate("Access token lifetime", A2);
  const huge = merge(
    [c.record.record_id, n.record_id],
    "T".repeat(5000),
    `<files>${
      Array.from({ length: 500 }, (_, i) => `<file>f${i}.ts</file>`).join("")
    }</files><observation_type>not-a-type</observation_type>`,
  );
  await h.judge.setScript([{ reply: huge }]);
  await h.commit([c]);
  const summary = (await all(h.storage)).find((r) => r.strategy === "llm-reconciled")!;
  assert.ok(summary.title.length <= 200);
  assert.ok(summary.files_touched.length <= 200);
  assert.equal(summary.observation_type, c.record.observation_type, "unknown type dropped");
});

Deno.test("the judge respects the daily LLM budget: over it, clusters are kept separate", async () => {
  await using h = await harness([{ reply: "<keep_separate/>" }]);
  await h.neighbour("Refresh tokens expire after an hour", A);
  await h.storage.addLlmUsage({
    project_id: PROJECT,
    purpose: "extract",
    chars_sent: 999_999_999,
    chars_received: 0,
  });
  const out = await h.commit([h.candidate("Access token lifetime", A2)]);
  assert.equal(out.details.budget_skips, 1);
  assert.equal((await h.judge.prompts()).length, 0);
  assert.equal(h.breaker.state(PROJECT), "closed");
});
