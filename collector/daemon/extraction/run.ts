/**
 * One extraction run for one project (seed 001, with the design's fixes): snapshot the queue to
 * a watermark, put it in the order things happened, skip trivial entries, chunk to the prompt
 * cap, extract each chunk (LLM or heuristic), and commit each chunk's records together with
 * exactly the queue rows it consumed (an explicit list of seqs, never a seq range).
 * A failure leaves the failing chunk's rows queued; a crash at any point loses nothing and a rerun
 * duplicates nothing, because records and row deletions share one transaction.
 *
 * @module
 */
import { newRecordId } from "@kiro-learn/core/ids";
import type { MemoryRecord, QueueEntry } from "@kiro-learn/core/schemas";
import type { ExtractionRun, RecordWithEmbedding, Storage } from "@kiro-learn/core/storage";
import { chunkEntries, isTrivialEntry, type ParsedRecord } from "@kiro-learn/core/xml";
import type { Logger } from "../runtime/mod.ts";
import { extractHeuristic } from "./_heuristic.ts";
import { BudgetExhaustedError, llmBudget } from "../llm/mod.ts";
import { extractWithAgent } from "./llm_extractor.ts";
import type { PromptRunner } from "../llm/mod.ts";
import type { Semaphore } from "../llm/mod.ts";
import type { RunOutcome } from "./_watcher.ts";

/** Most queue rows one run takes (the rest wait for the next run). */
export const MAX_ROWS_PER_RUN = 5000;

/** One chunk's records, to commit together with the queue rows the chunk consumed. */
export interface ChunkToCommit {
  /** Project. */
  projectId: string;
  /** Namespace of the chunk. */
  namespace: string;
  /** How the records were made. */
  strategy: MemoryRecord["strategy"];
  /** The records, with their embeddings when computed. */
  records: RecordWithEmbedding[];
  /** Queue rows the chunk consumed. */
  consumedSeqs: number[];
}

/** What a chunk commit stored and deleted. */
export interface ChunkCommitResult {
  /** Records now stored (kept candidates and merge summaries). */
  stored: MemoryRecord[];
  /** Stored records a merge replaced (deleted). */
  deleted: string[];
  /** Counters and phase latencies, summed into the run's details. */
  details: Record<string, number>;
}

/**
 * Commits one chunk: its records and deletions and its consumed queue rows in ONE transaction, so
 * a crash loses nothing and a rerun duplicates nothing. Reconciliation plugs in here.
 */
export type ChunkCommitter = (
  chunk: ChunkToCommit,
  context: { runner: PromptRunner; semaphore: Semaphore; dailyBudgetChars: number },
) => Promise<ChunkCommitResult>;

/** What a run needs. */
export interface ExtractionDeps {
  /** The database. */
  storage: Storage;
  /** `acp` when an agent is configured and installed, else `heuristic`. */
  strategy: () => "acp" | "heuristic";
  /** The compressor command. */
  agentCommand: string[];
  /** Runs one ACP session. */
  runner: PromptRunner;
  /** Global LLM session limit. */
  semaphore: Semaphore;
  /** Prompt cap in bytes of framed XML. */
  promptCapBytes: number;
  /** Per-session timeout. */
  timeoutMs: number;
  /** Attempts per chunk. */
  maxAttempts: number;
  /** Daily cap on characters sent to the model (0 = never use the model). */
  dailyBudgetChars: number;
  /** Logger. */
  logger: Logger;
  /** Adds embeddings to new records before they are committed (optional). */
  embed?: (records: MemoryRecord[]) => Promise<RecordWithEmbedding[]>;
  /**
   * Commits a chunk (default: `commitExtraction` of the records, leaving out heuristic records
   * identical to one the project already holds).
   */
  commitChunk?: ChunkCommitter;
  /** Told about committed records (vector index, live feed). */
  onCommitted?: (records: MemoryRecord[]) => void;
  /** Told about records a merge deleted (vector index, live feed). */
  onDeleted?: (recordIds: string[]) => void;
  /** Told about every finished run (live feed). */
  onRun?: (run: ExtractionRun) => void;
}

function toRecords(
  parsed: ParsedRecord[],
  chunk: QueueEntry[],
  strategy: MemoryRecord["strategy"],
): MemoryRecord[] {
  const sources = [...new Set(chunk.flatMap((e) => e.source_event_ids))];
  // When it happened, not when it was extracted: a session imported a month later is a month
  // old (never later than now: a client's clock ahead of ours does not date it in the future).
  const times = chunk.map((e) => Date.parse(e.timestamp)).filter(Number.isFinite);
  const now = Date.now();
  const created = new Date(times.length > 0 ? Math.min(Math.max(...times), now) : now)
    .toISOString();
  return parsed.map((p) => ({
    record_id: newRecordId(),
    namespace: chunk[0].namespace,
    strategy,
    title: p.title,
    summary: p.summary,
    facts: p.facts,
    concepts: p.concepts,
    files_touched: p.files_touched,
    observation_type: p.observation_type,
    source_event_ids: sources,
    created_at: created,
  }));
}

/**
 * The rows in the order things happened: by event time, then arrival. Arrival order is not
 * enough: Claude Code's tool uses are delivered at their turn's end (in the background, or later
 * still from the spool), so they can arrive after the next prompt, and a run read in arrival
 * order would pair them with that prompt. Times are compared as instants (offsets differ).
 */
function inTimeOrder(entries: readonly QueueEntry[]): QueueEntry[] {
  const at = new Map(entries.map((e) => [e, Date.parse(e.timestamp)]));
  return [...entries].sort((a, b) => (at.get(a)! - at.get(b)!) || (a.seq - b.seq));
}

/** Runs extraction for `projectId`; never throws. */
export async function runExtraction(projectId: string, deps: ExtractionDeps): Promise<RunOutcome> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const phase = { snapshot: 0, extract: 0, commit: 0 };
  let strategyUsed = "heuristic";
  let llmUsed = false;
  let attempts = 0;
  let charsSent = 0;
  let charsReceived = 0;
  let contextTokens = 0;
  let recordsCommitted = 0;
  let consumed = 0;
  let chunksDone = 0;
  let entries: QueueEntry[] = [];
  let chunkCount = 0;
  let error: string | null = null;
  let budgetLimited = false;
  let identicalSkipped = 0;
  const reconcile: Record<string, number> = {};
  try {
    let t = performance.now();
    entries = inTimeOrder(
      await deps.storage.snapshotQueue(projectId, { limit: MAX_ROWS_PER_RUN }),
    );
    phase.snapshot = performance.now() - t;
    if (entries.length === 0) return { ok: true, consumed: 0 };
    const trivial = entries.filter(isTrivialEntry);
    const meaningful = entries.filter((e) => !isTrivialEntry(e));
    let pendingTrivial = trivial.map((e) => e.seq);
    const chunks = chunkEntries(meaningful, { capBytes: deps.promptCapBytes });
    chunkCount = chunks.length;
    const wanted = deps.strategy();
    if (chunks.length === 0) {
      await deps.storage.commitExtraction({ consumedSeqs: pendingTrivial, records: [] });
      consumed += pendingTrivial.length;
      return { ok: true, consumed };
    }
    for (const chunk of chunks) {
      t = performance.now();
      let parsed: ParsedRecord[] | undefined;
      let strategy: MemoryRecord["strategy"] = "heuristic";
      if (wanted === "acp") {
        // A run that tried the LLM is an LLM run, whether it succeeded or not.
        strategyUsed = "acp";
        try {
          const result = await extractWithAgent(chunk.xml, {
            runner: deps.runner,
            command: deps.agentCommand,
            timeoutMs: deps.timeoutMs,
            maxAttempts: deps.maxAttempts,
            semaphore: deps.semaphore,
            budget: llmBudget(deps.storage, {
              project_id: projectId,
              purpose: "extract",
              capChars: deps.dailyBudgetChars,
            }),
            onAttempt: (a) => {
              attempts++;
              charsSent += a.chars_sent;
              charsReceived += a.chars_received;
              contextTokens += a.context_tokens ?? 0;
            },
          });
          parsed = result.records;
          strategy = "llm-summary";
          llmUsed = true;
        } catch (error) {
          // Over the day's cap, the chunk is still extracted: by the heuristic extractor.
          if (!(error instanceof BudgetExhaustedError)) throw error;
          budgetLimited = true;
          if (!llmUsed) strategyUsed = "heuristic";
        }
      }
      if (parsed === undefined) parsed = extractHeuristic(chunk.entries);
      phase.extract += performance.now() - t;
      t = performance.now();
      const records = toRecords(parsed, chunk.entries, strategy);
      const withEmbeddings = deps.embed
        ? await deps.embed(records)
        : records.map((record) => ({ record }));
      const seqs = [...chunk.entries.map((e) => e.seq), ...pendingTrivial];
      let stored = records;
      let deleted: string[] = [];
      if (deps.commitChunk) {
        const result = await deps.commitChunk({
          projectId,
          namespace: chunk.entries[0].namespace,
          strategy,
          records: withEmbeddings,
          consumedSeqs: seqs,
        }, {
          runner: deps.runner,
          semaphore: deps.semaphore,
          dailyBudgetChars: deps.dailyBudgetChars,
        });
        ({ stored, deleted } = result);
        for (const [key, value] of Object.entries(result.details)) {
          reconcile[key] = (reconcile[key] ?? 0) + value;
        }
      } else {
        const { skipped } = await deps.storage.commitExtraction({
          consumedSeqs: seqs,
          records: withEmbeddings,
          // Exact copies are what the deterministic heuristic extractor makes of observations
          // seen before; LLM records are left to reconciliation.
          skipIdentical: strategy === "heuristic",
        });
        identicalSkipped += skipped.length;
        stored = records.filter((r) => !skipped.includes(r.record_id));
      }
      phase.commit += performance.now() - t;
      pendingTrivial = [];
      consumed += seqs.length;
      recordsCommitted += stored.length;
      chunksDone++;
      if (stored.length > 0) deps.onCommitted?.(stored);
      if (deleted.length > 0) deps.onDeleted?.(deleted);
    }
    return { ok: true, consumed };
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    return { ok: false, consumed, error };
  } finally {
    if (entries.length > 0) {
      const run: ExtractionRun = {
        project_id: projectId,
        namespace: entries[0].namespace,
        started_at: startedAt,
        duration_ms: Math.round(performance.now() - started),
        strategy: strategyUsed,
        outcome: error === null ? "ok" : chunksDone > 0 ? "partial" : "failed",
        entries: entries.length,
        chunks: chunkCount,
        records: recordsCommitted,
        attempts,
        chars_sent: charsSent,
        chars_received: charsReceived,
        error,
        details: {
          consumed,
          budget_limited: budgetLimited,
          // Records left out because the project already held an identical one.
          ...(identicalSkipped > 0 ? { identical_skipped: identicalSkipped } : {}),
          // Tokens the agent reported in its model's context (ACP usage_update), when it did:
          // unlike chars_sent, this includes the agent's own system prompt and tools.
          ...(contextTokens > 0 ? { agent_context_tokens: contextTokens } : {}),
          ...(Object.keys(reconcile).length > 0 ? { reconcile } : {}),
          phase_ms: Object.fromEntries(Object.entries(phase).map(([k, v]) => [k, Math.round(v)])),
        },
      };
      if (run.outcome === "ok") deps.logger.info("extraction-run", { ...run });
      else deps.logger.warn("extraction-run", { ...run });
      try {
        run.id = await deps.storage.recordRun(run);
      } catch {
        // The run's own outcome already happened; the audit row is best effort.
      }
      deps.onRun?.(run);
    }
  }
}
