/**
 * The session-start resume block: the latest turn summaries and the newest other records of the
 * project, newest first (so it leads with the last real work; lifecycle noise such as "session
 * ended (other)" is never shown), inside the same token budget as prompt retrieval.
 *
 * @module
 */
import type { Event, MemoryRecord } from "@kiro-learn/core/schemas";
import { joinBlocks, MAX_HOOK_OUTPUT_BYTES } from "@kiro-learn/core/hooks";
import {
  CHARS_PER_TOKEN,
  estimateTokens,
  formatContext,
  isLifecycleRecord,
} from "@kiro-learn/core/search";
import type { Storage } from "@kiro-learn/core/storage";
import type { Logger } from "../runtime/mod.ts";
import type { Retrieval, RetrievalResult } from "./assembler.ts";
import { firstOfEachEvidence } from "./_evidence.ts";

/** The query the resume block is logged with (what a session was shown when it started). */
export const SESSION_START_QUERY = "(session start)";

/** Header of the resume block. */
export const RESUME_HEADER = "## Where this project left off (kiro-learn)";

/** Builds the resume function; it never rejects. */
export function createResumeAssembler(
  options: { storage: Storage; tokenBudget: number; logger?: Logger },
): (event: Event) => Promise<RetrievalResult> {
  return async (event) => {
    const started = performance.now();
    try {
      // Asked for more than shown: lifecycle noise left by older versions is dropped, and
      // similar sessions leave the same summary again and again, which is shown once.
      const summaries = firstOfEachEvidence(
        (await options.storage.recentRecords(event.namespace, {
          limit: 20,
          types: ["session_summary"],
        })).filter((r) => !isLifecycleRecord(r)),
        { record: (r) => r, limit: 3 },
      );
      const others = firstOfEachEvidence(
        await options.storage.recentRecords(event.namespace, {
          limit: 20,
          types: ["decision", "error", "discovery", "pattern", "tool_use"],
        }),
        { record: (r) => r, limit: 5 },
      );
      // A resumed session (same id) already holds what it was shown.
      const shown = new Set(
        await options.storage.injectedInSession(event.namespace, event.session_id, {
          query: SESSION_START_QUERY,
        }),
      );
      const newestFirst = [...summaries, ...others]
        .filter((r) => !shown.has(r.record_id) && !isLifecycleRecord(r))
        .sort((a, b) =>
          b.created_at.localeCompare(a.created_at) || b.record_id.localeCompare(a.record_id)
        );
      const records: MemoryRecord[] = firstOfEachEvidence(newestFirst, { record: (r) => r });
      const formatted = formatContext(records, {
        tokenBudget: Math.min(options.tokenBudget, 1000),
        header: RESUME_HEADER,
        projectRoot: event.source.project_path,
      });
      const latency = Math.round((performance.now() - started) * 100) / 100;
      await options.storage.logRetrieval({
        event_id: event.event_id,
        namespace: event.namespace,
        query: SESSION_START_QUERY,
        results: formatted.record_ids.map((id) => ({ record_id: id, score: 0 })),
        latency_ms: latency,
        tokens: formatted.tokens,
        outcome: formatted.record_ids.length > 0 ? "ok" : "empty",
      });
      return { context: formatted.context, records: formatted.record_ids, latency_ms: latency };
    } catch (error) {
      options.logger?.warn("resume block failed", { error: String(error) });
      return { context: "", records: [], latency_ms: performance.now() - started };
    }
  };
}

/** A prompt's retrieval; `sessionStart` asks for the session-start block too. */
export type PromptRetrieval = (
  event: Event,
  options?: { sessionStart?: boolean },
) => Promise<RetrievalResult>;

/**
 * A prompt's retrieval that, when asked (`sessionStart`: a prompt of a session whose start hook
 * only stored) and the session has not been given the session-start block yet (no retrieval of
 * its logged with {@linkcode SESSION_START_QUERY}, even an empty one), leads with that block:
 * built and logged first, so the prompt's own block leaves out what it shows. One answer, the
 * two blocks separated by a blank line, within one hook's output limit (the prompt's block
 * gets the room the start block leaves).
 */
export function withSessionStart(
  retrieve: Retrieval,
  options: {
    resume: (event: Event) => Promise<RetrievalResult>;
    storage: Pick<Storage, "retrievedInSession">;
    logger?: Logger;
  },
): PromptRetrieval {
  return async (event, asked = {}) => {
    if (asked.sessionStart !== true || !await startBlockDue(event, options)) {
      return await retrieve(event);
    }
    const start = await options.resume(event);
    // One hook prints both: the prompt's block gets what room the start block leaves under the
    // hook's output limit, so it is never cut off mid-way.
    const room = Math.floor(MAX_HOOK_OUTPUT_BYTES / CHARS_PER_TOKEN) -
      estimateTokens(`${start.context}\n\n`);
    const prompt = await retrieve(event, { tokenBudget: Math.max(room, 0) });
    return {
      context: joinBlocks([start.context, prompt.context]),
      records: [...start.records, ...prompt.records],
      latency_ms: Math.round((start.latency_ms + prompt.latency_ms) * 100) / 100,
    };
  };
}

// Whether the session still needs its start block; on a storage failure, no (never twice).
async function startBlockDue(
  event: Event,
  options: { storage: Pick<Storage, "retrievedInSession">; logger?: Logger },
): Promise<boolean> {
  try {
    return !await options.storage.retrievedInSession(event.namespace, event.session_id, {
      query: SESSION_START_QUERY,
    });
  } catch (error) {
    options.logger?.warn("session-start check failed", { error: String(error) });
    return false;
  }
}
