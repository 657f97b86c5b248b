// Child process (and in-process helper) for the crash tests: one extraction run over three
// chunks through reconciliation, with an in-process fake model. With `--crash-at-judge=N` the
// process SIGKILLs itself when the judge is asked about chunk N — after earlier chunks committed,
// before chunk N's transaction.
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { cosineSimilarity } from "@kiro-learn/core/search";
import { openSqliteStorage, type SqliteStorage } from "@kiro-learn/core/storage";
import type { PromptRunner } from "../../llm/mod.ts";
import { runExtraction } from "../../extraction/mod.ts";
import { Semaphore } from "../../llm/mod.ts";
import type { Logger } from "../../runtime/mod.ts";
import { createReconciler } from "../mod.ts";

/** Model id of the fake embedder. */
export const MODEL = "fake@1";

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, debugEnabled: false };

/** Runs one extraction over the project's queue; merges in chunk 1 (the first event's), keeps separate after. */
export async function runOnce(
  storage: SqliteStorage,
  projectId: string,
  options: { crashAtJudge?: number } = {},
): Promise<{ ok: boolean }> {
  let chunk = 0;
  const runner: PromptRunner = (_command, prompt) => {
    if (!prompt.includes("<reconciliation_request>")) {
      // Chunks are named by their event (one event per chunk), so a rerun names them the same.
      chunk = Number(/event (\d+) /.exec(prompt)?.[1] ?? -1) + 1;
      return Promise.resolve({
        text: `<memory_record type="decision"><title>chunk ${chunk} x</title>` +
          `<summary>first record of chunk ${chunk}</summary></memory_record>` +
          `<memory_record type="decision"><title>chunk ${chunk} y</title>` +
          `<summary>second record of chunk ${chunk}</summary></memory_record>`,
      });
    }
    if (chunk === options.crashAtJudge) Deno.kill(Deno.pid, "SIGKILL");
    if (chunk !== 1) return Promise.resolve({ text: "<keep_separate/>" });
    const ids = [...prompt.matchAll(/record_id="(mr_[0-9A-Z]+)"/g)].map((m) => m[1]);
    return Promise.resolve({
      text: `<merge>${ids.map((id) => `<merged_record_id>${id}</merged_record_id>`).join("")}` +
        `<title>merged in chunk 1</title><summary>everything chunk 1 said</summary></merge>`,
    });
  };
  const reconciler = createReconciler({
    storage,
    enabled: true,
    command: ["fake-judge"],
    judgeTimeoutMs: 5000,
    clusterThreshold: 0.85,
    neighborThreshold: 0.8,
    neighborPoolMax: 10,
    searchNeighbors: async (ns, query, { k, minSimilarity }) =>
      (await storage.listEmbeddings(ns, { model: MODEL }))
        .map((e) => ({ record_id: e.record_id, similarity: cosineSimilarity(query, e.vector) }))
        .filter((h) => h.similarity >= minSimilarity)
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, k),
    embed: (records: MemoryRecord[]) =>
      Promise.resolve(records.map((record) => ({
        record,
        embedding: { model: MODEL, vector: Float32Array.of(1, 0, 0) },
      }))),
  });
  return await runExtraction(projectId, {
    storage,
    strategy: () => "acp",
    agentCommand: ["fake-compressor"],
    runner,
    semaphore: new Semaphore(2),
    promptCapBytes: 4096,
    timeoutMs: 5000,
    maxAttempts: 1,
    dailyBudgetChars: 1_000_000_000,
    logger: silent,
    embed: (records) =>
      Promise.resolve(records.map((record) => ({
        record,
        embedding: { model: MODEL, vector: Float32Array.of(1, 0, 0) },
      }))),
    commitChunk: reconciler.commitChunk,
  });
}

if (import.meta.main) {
  const [path, projectId, crash] = Deno.args;
  const storage = openSqliteStorage(path);
  await runOnce(storage, projectId, { crashAtJudge: crash ? Number(crash) : undefined });
  storage.close();
}
