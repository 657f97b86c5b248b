/**
 * Reconciliation (seed 002, with the design's fixes): dedupe a chunk's candidate records against
 * each other and against the project's stored records, then commit.
 *
 * 1. Cluster the candidates (union-find at cosine ≥ `clusterThreshold`).
 * 2. Per cluster, in its own try/catch: stored neighbours of the centroid (≥
 *    `neighborThreshold`, at most `neighborPoolMax`, exact namespace); none → keep separate;
 *    otherwise ask the judge; a merge replaces the cited records by one `llm-reconciled` summary.
 * 3. Commit the WHOLE chunk — every cluster's records, the neighbours merges replaced, the merge
 *    history and the chunk's consumed queue rows — in one transaction.
 *
 * Why one transaction per chunk rather than per cluster: the queue rows are the only record of
 * which events have been distilled. Committing clusters one by one means either deleting the rows
 * with the first cluster (a crash before the last cluster loses the rest: kiro-learn bug 6) or
 * with the last (a crash in between re-extracts the chunk and duplicates the early clusters: bug
 * 7). One transaction makes a chunk all-or-nothing. Per-cluster isolation is kept where it
 * matters — a failing neighbour lookup or judge turns that cluster into keep-separate, never
 * into a lost or blocked chunk — and the judge calls all happen before the transaction opens.
 *
 * Cluster members the judge does not cite are committed unchanged (kiro-learn bug 5 dropped
 * them). A merge needs at least two resolvable records, so a judge cannot silently rewrite one.
 *
 * @module
 */
import { llmBudget } from "../llm/mod.ts";
import { newRecordId } from "@kiro-learn/core/ids";
import { type MemoryRecord, MemoryRecordSchema, RECORD_LIMITS } from "@kiro-learn/core/schemas";
import {
  type MergeLog,
  type RecordWithEmbedding,
  StaleCommitError,
  type Storage,
} from "@kiro-learn/core/storage";
import type { JudgeMergedRecord, JudgeNeighbor } from "@kiro-learn/core/xml";
import type { ChunkCommitResult, ChunkCommitter, ChunkToCommit } from "../extraction/mod.ts";
import type { PromptRunner } from "../llm/mod.ts";
import type { Semaphore } from "../llm/mod.ts";
import type { VectorHit } from "../embedding/mod.ts";
import type { Logger } from "../runtime/mod.ts";
import { CircuitBreaker } from "../runtime/mod.ts";
import { clusterCandidates } from "./cluster.ts";
import { askJudge } from "./judge.ts";

/** Finds stored records of exactly `namespace` near `vector`, best first. */
export type NeighborSearch = (
  namespace: string,
  vector: Float32Array,
  options: { k: number; minSimilarity: number },
) => Promise<VectorHit[]>;

/** Settings and collaborators of {@link createReconciler}. */
export interface ReconcilerOptions {
  /** The database. */
  storage: Storage;
  /** `reconciliation.enabled`; when false every chunk is committed directly. */
  enabled: boolean;
  /** The reconciler agent command (`reconciliation.agentCommand`). */
  command: string[];
  /** Judge session timeout (`reconciliation.judgeTimeoutMs`, default 30 s). */
  judgeTimeoutMs: number;
  /** Intra-chunk cluster threshold (default 0.85, inclusive). */
  clusterThreshold: number;
  /** Neighbour similarity threshold (default 0.80, inclusive). */
  neighborThreshold: number;
  /** Most neighbours shown to the judge (default 10). */
  neighborPoolMax: number;
  /** The vector index; absent means no neighbours (every cluster is kept separate). */
  searchNeighbors?: NeighborSearch;
  /** Embeds merge summaries before the transaction opens; absent or failing leaves them null. */
  embed?: (records: MemoryRecord[]) => Promise<RecordWithEmbedding[]>;
  /** Judge breakers (default: 3 failures, 5 minutes cool-down). */
  breaker?: CircuitBreaker;
  /** Logger. */
  logger?: Logger;
  /** Clock for summary timestamps. */
  now?: () => Date;
}

/** A reconciler: a {@link ChunkCommitter} with its breaker exposed for status. */
export interface Reconciler {
  /** Commits one chunk through reconciliation. */
  commitChunk: ChunkCommitter;
  /** The per-project judge breakers. */
  breaker: CircuitBreaker;
}

interface Member {
  record: MemoryRecord;
  embedding: RecordWithEmbedding["embedding"];
}

interface ClusterPlan {
  /** Records to insert (kept members, then the summary). */
  put: RecordWithEmbedding[];
  /** Neighbour ids to delete. */
  deleteIds: string[];
  /** The merge, if any; `replacedMembers` go back into `put` if the merge is abandoned. */
  merge?: { summary: MemoryRecord; log: MergeLog; replacedMembers: Member[] };
}

type Counters = Record<string, number>;

function count(counters: Counters, key: string, by = 1): void {
  counters[key] = (counters[key] ?? 0) + by;
}

/** Creates the reconciler the extraction run commits through. */
export function createReconciler(options: ReconcilerOptions): Reconciler {
  const breaker = options.breaker ?? new CircuitBreaker();
  const now = options.now ?? (() => new Date());

  async function direct(chunk: ChunkToCommit, counters: Counters): Promise<ChunkCommitResult> {
    const t = performance.now();
    // The heuristic extractor has no judge, and is deterministic: given the same observations
    // again it makes exact copies of stored records, which are one memory. (LLM records that
    // reach this path, with the judge's breaker open or reconciliation off, are kept as made.)
    const { skipped } = await options.storage.commitExtraction({
      consumedSeqs: chunk.consumedSeqs,
      records: chunk.records,
      skipIdentical: chunk.strategy === "heuristic",
    });
    const stored = chunk.records.map((r) => r.record).filter((r) => !skipped.includes(r.record_id));
    count(counters, "direct_committed", stored.length);
    if (skipped.length > 0) count(counters, "identical_skipped", skipped.length);
    count(counters, "commit_ms", performance.now() - t);
    return { stored, deleted: [], details: counters };
  }

  const commitChunk: ChunkCommitter = async (chunk, context) => {
    const counters: Counters = {};
    // The judge is an LLM: heuristic records (no LLM available, or the daily budget spent) are
    // committed as they are, like everything when reconciliation is off.
    if (!options.enabled || chunk.strategy === "heuristic" || chunk.records.length === 0) {
      return await direct(chunk, counters);
    }
    if (!breaker.allows(chunk.projectId)) {
      count(counters, "breaker_open_chunks");
      return await direct(chunk, counters);
    }
    let t = performance.now();
    const members: Member[] = chunk.records.map((r) => ({
      record: r.record,
      embedding: r.embedding ?? null,
    }));
    const clusters = clusterCandidates(members.map((m) => m.embedding?.vector ?? null), {
      threshold: options.clusterThreshold,
    });
    count(counters, "clusters", clusters.length);
    count(counters, "clustering_ms", performance.now() - t);

    // Neighbours claimed by an earlier cluster's merge are not offered again: two summaries
    // must not both replace (and so both copy) one record.
    const claimed = new Set<string>();
    const plans: ClusterPlan[] = [];
    for (const cluster of clusters) {
      const clusterMembers = cluster.members.map((i) => members[i]);
      const keep: ClusterPlan = {
        put: clusterMembers.map((m) => ({ record: m.record, embedding: m.embedding })),
        deleteIds: [],
      };
      try {
        plans.push(
          await planCluster(chunk, clusterMembers, cluster.centroid, {
            context,
            counters,
            claimed,
          }) ?? keep,
        );
      } catch (error) {
        count(counters, "cluster_errors");
        options.logger?.warn("reconciliation: cluster kept separate after an error", {
          project_id: chunk.projectId,
          error: String(error),
        });
        plans.push(keep);
      }
    }

    // Summaries are embedded before the transaction opens, so its body stays synchronous.
    t = performance.now();
    const summaries = plans.flatMap((p) => p.merge ? [p.merge.summary] : []);
    const summaryEmbeddings = new Map<string, RecordWithEmbedding["embedding"]>();
    if (summaries.length > 0 && options.embed) {
      try {
        for (const r of await options.embed(summaries)) {
          summaryEmbeddings.set(r.record.record_id, r.embedding ?? null);
        }
      } catch (error) {
        // Backfill embeds them later; a merge is not worth losing over a vector.
        options.logger?.warn("reconciliation: could not embed merge summaries", {
          error: String(error),
        });
      }
    }
    for (const plan of plans) {
      if (!plan.merge) continue;
      const summary = plan.merge.summary;
      plan.put.push({
        record: summary,
        embedding: summaryEmbeddings.get(summary.record_id) ?? null,
      });
    }
    count(counters, "embed_ms", performance.now() - t);

    t = performance.now();
    let final = plans;
    try {
      await commitPlans(chunk, final);
    } catch (error) {
      // A neighbour was forgotten (or merged elsewhere) after the judge saw it: abandon the
      // merges that would delete it — their members are kept as they are — and commit again.
      if (!(error instanceof StaleCommitError) || error.missingRecords.length === 0) throw error;
      const gone = new Set(error.missingRecords);
      final = plans.map((plan) => {
        if (!plan.merge || !plan.deleteIds.some((id) => gone.has(id))) return plan;
        count(counters, "merges_abandoned");
        return {
          put: [
            ...plan.put.filter((p) => p.record.record_id !== plan.merge!.summary.record_id),
            ...plan.merge.replacedMembers.map((m) => ({
              record: m.record,
              embedding: m.embedding,
            })),
          ],
          deleteIds: [],
        };
      });
      await commitPlans(chunk, final);
    }
    count(counters, "commit_ms", performance.now() - t);
    const stored = final.flatMap((p) => p.put.map((r) => r.record));
    const deleted = final.flatMap((p) => p.deleteIds);
    const merges = final.filter((p) => p.merge).length;
    count(counters, "merges_committed", merges);
    count(counters, "records_deleted", deleted.length);
    count(counters, "kept_records", stored.length - merges);
    return { stored, deleted, details: counters };
  };

  async function commitPlans(chunk: ChunkToCommit, plans: ClusterPlan[]): Promise<void> {
    await options.storage.commitReconciliation({
      consumedSeqs: chunk.consumedSeqs,
      put: plans.flatMap((p) => p.put),
      deleteIds: plans.flatMap((p) => p.deleteIds),
      merges: plans.flatMap((p) => p.merge ? [p.merge.log] : []),
    });
  }

  /** Plans one cluster; `undefined` means keep its members separate. */
  async function planCluster(
    chunk: ChunkToCommit,
    clusterMembers: Member[],
    centroid: Float32Array | null,
    state: {
      context: { runner: PromptRunner; semaphore: Semaphore; dailyBudgetChars: number };
      counters: Counters;
      claimed: Set<string>;
    },
  ): Promise<ClusterPlan | undefined> {
    const { counters } = state;
    if (centroid === null || !options.searchNeighbors) {
      count(counters, "null_centroid");
      return undefined;
    }
    let t = performance.now();
    const hits = (await options.searchNeighbors(chunk.namespace, centroid, {
      k: options.neighborPoolMax,
      minSimilarity: options.neighborThreshold,
    }))
      .filter((h) => h.similarity >= options.neighborThreshold && !state.claimed.has(h.record_id))
      .sort((a, b) => b.similarity - a.similarity || (a.record_id < b.record_id ? -1 : 1))
      .slice(0, options.neighborPoolMax);
    const stored = hits.length > 0
      ? await options.storage.getRecords(hits.map((h) => h.record_id))
      : [];
    const byId = new Map(
      stored.filter((r) => r.namespace === chunk.namespace).map((r) => [r.record_id, r]),
    );
    const neighbors = hits.filter((h) => byId.has(h.record_id));
    count(counters, "neighbor_ms", performance.now() - t);
    if (neighbors.length === 0) {
      count(counters, "no_neighbors");
      return undefined;
    }
    if (!breaker.allows(chunk.projectId)) {
      count(counters, "breaker_skips");
      return undefined;
    }
    const request = {
      candidates: clusterMembers.map((m) => ({
        record_id: m.record.record_id,
        title: m.record.title,
        summary: m.record.summary,
        facts: m.record.facts,
        concepts: m.record.concepts,
        files_touched: m.record.files_touched,
        observation_type: m.record.observation_type,
      })),
      neighbors: neighbors.map((h): JudgeNeighbor => {
        const r = byId.get(h.record_id)!;
        return {
          record_id: r.record_id,
          title: r.title,
          summary: r.summary,
          facts: r.facts,
          similarity: h.similarity,
        };
      }),
    };
    t = performance.now();
    const budget = llmBudget(options.storage, {
      project_id: chunk.projectId,
      purpose: "reconcile",
      capChars: state.context.dailyBudgetChars,
    });
    const outcome = await askJudge(request, {
      runner: state.context.runner,
      command: options.command,
      timeoutMs: options.judgeTimeoutMs,
      semaphore: state.context.semaphore,
      // A judge session reserves its prompt in the shared daily budget before it starts.
      budget: { allows: (chars) => budget.reserve(chars) },
      onAttempt: (a) => {
        count(counters, "judge_attempts");
        count(counters, "judge_chars_sent", a.chars_sent);
        count(counters, "judge_chars_received", a.chars_received);
        budget.settle(a.reserved, { sent: a.chars_sent, received: a.chars_received })
          .catch(() => {});
      },
    });
    count(counters, "judge_ms", performance.now() - t);
    if (outcome.kind === "over_budget") {
      count(counters, "budget_skips");
      return undefined;
    }
    count(counters, "judge_calls");
    if (outcome.kind === "failed") {
      count(counters, "judge_failures");
      count(counters, `judge_${outcome.reason}`);
      breaker.recordFailure(chunk.projectId);
      options.logger?.warn("reconciliation: judge failed, cluster kept separate", {
        project_id: chunk.projectId,
        reason: outcome.reason,
        attempts: outcome.attempts,
        error: outcome.message,
        breaker: breaker.state(chunk.projectId),
      });
      return undefined;
    }
    breaker.recordSuccess(chunk.projectId);
    if (outcome.kind === "keep_separate") {
      count(counters, "keep_separate");
      return undefined;
    }
    const plan = resolveMerge(chunk.namespace, clusterMembers, neighbors, byId, {
      merged_ids: outcome.merged_ids,
      record: outcome.record,
      now: now(),
    });
    if (!plan) {
      count(counters, "merge_unresolved");
      return undefined;
    }
    count(counters, "merge_decisions");
    for (const id of plan.deleteIds) state.claimed.add(id);
    return plan;
  }

  return { commitChunk, breaker };
}

/**
 * Turns a merge decision into a plan (spec §6 "Merge resolution"): cited ids resolved against the
 * cluster members and the neighbours (unknown ids ignored), ordered members first then
 * neighbours by similarity; fewer than two resolved records is no merge. The summary gets a new
 * id, strategy `llm-reconciled`, the judge's fields, the judge's observation type or else the
 * first resolved record's, the first-seen union of their source events, and `created_at` = now.
 */
export function resolveMerge(
  namespace: string,
  members: readonly Member[],
  neighbors: readonly VectorHit[],
  stored: ReadonlyMap<string, MemoryRecord>,
  decision: { merged_ids: readonly string[]; record: JudgeMergedRecord; now: Date },
): ClusterPlan | undefined {
  const cited = new Set(decision.merged_ids);
  const citedMembers = members.filter((m) => cited.has(m.record.record_id));
  const citedNeighbors = neighbors.filter((h) => cited.has(h.record_id)).map((h) =>
    stored.get(h.record_id)!
  );
  const replaced = [...citedMembers.map((m) => m.record), ...citedNeighbors];
  if (replaced.length < 2) return undefined;
  const sources: string[] = [];
  const seen = new Set<string>();
  for (const r of replaced) {
    for (const id of r.source_event_ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      sources.push(id);
    }
  }
  const parsed = MemoryRecordSchema.safeParse({
    record_id: newRecordId(),
    namespace,
    strategy: "llm-reconciled",
    title: decision.record.title,
    summary: decision.record.summary,
    facts: decision.record.facts,
    concepts: decision.record.concepts,
    files_touched: decision.record.files_touched,
    observation_type: decision.record.observation_type ?? replaced[0].observation_type,
    source_event_ids: sources.slice(0, RECORD_LIMITS.sourceEventIds),
    created_at: decision.now.toISOString(),
  });
  if (!parsed.success) return undefined;
  const summary = parsed.data;
  return {
    put: members.filter((m) => !cited.has(m.record.record_id)).map((m) => ({
      record: m.record,
      embedding: m.embedding,
    })),
    deleteIds: citedNeighbors.map((r) => r.record_id),
    merge: {
      summary,
      log: { summary_id: summary.record_id, replaced },
      replacedMembers: citedMembers,
    },
  };
}
