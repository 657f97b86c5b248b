/**
 * Queue compaction: when a project's queue grows past its threshold (extraction failing for a
 * long time, say), the oldest half of its rows is replaced by a few compacted rows in one
 * transaction — the compactor agent first, a deterministic digest as the fallback — with every
 * replaced event id kept as provenance.
 *
 * @module
 */
import { agentInstructions, COMPACTOR_AGENT } from "@kiro-learn/agents";
import type { QueueEntry } from "@kiro-learn/core/schemas";
import type { NewQueueEntry, Storage } from "@kiro-learn/core/storage";
import { chunkEntries, frameCompactionRequest, parseCompactedEntries } from "@kiro-learn/core/xml";
import {
  failedSpend,
  type LlmBudget,
  promptBytes,
  type PromptReply,
  wireSpend,
} from "../llm/mod.ts";
import type { Logger } from "../runtime/mod.ts";
import { extractHeuristic } from "./_heuristic.ts";
import type { PromptRunner } from "../llm/mod.ts";
import type { Semaphore } from "../llm/mod.ts";

/** What a compaction did. */
export interface CompactionResult {
  /** Rows replaced. */
  replaced: number;
  /** Compacted rows written. */
  added: number;
  /** `agent`, `digest`, or `none`. */
  strategy: "agent" | "digest" | "none";
}

/**
 * The compactor's request with its whole instructions (the `kiro-learn-compactor` agent's
 * prompt) ahead of it, for an ACP agent that never sees that agent definition.
 */
export function compactionPrompt(entries: readonly QueueEntry[]): string {
  return [
    agentInstructions(
      "You need no tools and must not use any: read the observations and answer with XML only.",
      COMPACTOR_AGENT.prompt,
    ),
    frameCompactionRequest(entries),
  ].join("\n");
}

/** A deterministic digest of entries: the heuristic extractor's records, as text. */
export function digestEntries(entries: readonly QueueEntry[]): string {
  const records = extractHeuristic(entries);
  if (records.length === 0) return `Compacted ${entries.length} observations with nothing notable.`;
  return records.map((r) => `${r.title}: ${r.summary}`).join("\n\n").slice(0, 64 * 1024);
}

/** Compacts the oldest half of a project's queue. */
export async function compactQueue(
  projectId: string,
  options: {
    storage: Storage;
    runner: PromptRunner;
    semaphore: Semaphore;
    useAgent: boolean;
    command: string[];
    timeoutMs: number;
    maxAttempts: number;
    logger: Logger;
    /** Largest request, in bytes of framed XML (the extraction prompt cap). */
    promptCapBytes?: number;
    /** The shared daily LLM budget; every attempt reserves its prompt first. */
    budget?: LlmBudget;
  },
): Promise<CompactionResult> {
  const entries = await options.storage.snapshotQueue(projectId, { limit: 5000 });
  if (entries.length < 2) return { replaced: 0, added: 0, strategy: "none" };
  const half = entries.slice(0, Math.ceil(entries.length / 2));
  // One prompt never exceeds the cap: compact the oldest entries that fit in it (the next
  // compaction, if still needed, takes the next ones).
  const [first] = chunkEntries(half, { capBytes: options.promptCapBytes ?? 65_536 });
  const oldest = first.entries.length >= 2 ? first.entries : half.slice(0, 2);
  let texts: string[] | null = null;
  let strategy: CompactionResult["strategy"] = "digest";
  if (options.useAgent) {
    const prompt = compactionPrompt(oldest);
    for (let attempt = 1; attempt <= options.maxAttempts && texts === null; attempt++) {
      const reserved = promptBytes(prompt);
      if (options.budget && !(await options.budget.reserve(reserved))) break;
      let reply: PromptReply;
      try {
        reply = await options.semaphore.run(() =>
          options.runner(options.command, prompt, { timeoutMs: options.timeoutMs })
        );
      } catch (error) {
        // What really crossed before it failed, not the whole reservation.
        await options.budget?.settle(reserved, failedSpend(prompt, error));
        options.logger.warn("compactor attempt failed", { attempt, error: String(error) });
        continue;
      }
      await options.budget?.settle(reserved, wireSpend(prompt, reply));
      texts = parseCompactedEntries(reply.text);
    }
    if (texts !== null) strategy = "agent";
  }
  texts ??= [digestEntries(oldest)];
  const sources = [...new Set(oldest.flatMap((e) => e.source_event_ids))];
  const newest = oldest.reduce((a, b) => (a.timestamp > b.timestamp ? a : b));
  const rows: NewQueueEntry[] = texts.map((content) => ({
    project_id: projectId,
    namespace: oldest[0].namespace,
    kind: "session_summary",
    body: { type: "text", content },
    timestamp: newest.timestamp,
    surface: oldest[0].surface,
    source_event_ids: sources,
    compacted: true,
  }));
  await options.storage.replaceQueueRows({ removeSeqs: oldest.map((e) => e.seq), entries: rows });
  options.logger.info("queue-compaction", {
    project_id: projectId,
    replaced: oldest.length,
    added: rows.length,
    strategy,
  });
  return { replaced: oldest.length, added: rows.length, strategy };
}
