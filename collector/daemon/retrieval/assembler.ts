/**
 * Inline retrieval (seed 003): query from the prompt body, a budget around the whole search,
 * the fixed context format under a token budget, an audit row per injection, and never a throw.
 *
 * @module
 */
import type { Event, MemoryRecord } from "@kiro-learn/core/schemas";
import { formatContext } from "@kiro-learn/core/search";
import type { ScoredRecord, Storage } from "@kiro-learn/core/storage";
import type { Logger } from "../runtime/mod.ts";
import { SESSION_START_QUERY } from "./resume.ts";

/** What the shim gets back. */
export interface RetrievalResult {
  /** The context block ('' when there is nothing to say). */
  context: string;
  /** Ids of the injected records, for audit. */
  records: string[];
  /** Wall time of the whole retrieval. */
  latency_ms: number;
}

/** Ranked search over one namespace (lexical now, hybrid once embeddings exist). */
export type Searcher = (
  namespace: string,
  query: string,
  options: { limit: number },
) => Promise<ScoredRecord[]>;

/** Retrieval settings. */
export interface AssemblerOptions {
  /** Audit log and default searcher. */
  storage: Storage;
  /** Ranked search; defaults to the storage's lexical search. */
  search?: Searcher;
  /** Budget around the whole search. */
  budgetMs: number;
  /** Most records searched for. */
  limit: number;
  /** Token budget of the context block. */
  tokenBudget: number;
  /** Where failures are reported. */
  logger?: Logger;
  /** Told about every logged retrieval (live feed). */
  onRetrieval?: (info: { namespace: string; records: string[]; latency_ms: number }) => void;
}

/** Turns a prompt body into the search string (seed 003's table). */
export function queryFromBody(body: Event["body"]): string {
  switch (body.type) {
    case "text":
      return body.content;
    case "message":
      return body.turns.at(-1)?.content ?? "";
    case "json":
      return JSON.stringify(body.data) ?? "";
  }
}

const TIMED_OUT = Symbol("timed out");

/**
 * A prompt's retrieval; `tokenBudget` narrows the block's budget for this call (when it shares
 * a hook's output with the session-start block).
 */
export type Retrieval = (
  event: Event,
  options?: { tokenBudget?: number },
) => Promise<RetrievalResult>;

/** Builds the retrieval function the ingest pipeline calls. Its result never rejects. */
export function createAssembler(options: AssemblerOptions): Retrieval {
  const search: Searcher = options.search ??
    ((ns, q, o) => options.storage.searchLexical(ns, q, o));
  return async (event, asked = {}) => {
    const started = performance.now();
    const tokenBudget = Math.min(options.tokenBudget, asked.tokenBudget ?? Infinity);
    const query = queryFromBody(event.body).trim();
    if (query === "") return { context: "", records: [], latency_ms: 0 };
    let hits: ScoredRecord[] = [];
    let outcome: "ok" | "empty" | "timeout" | "error" = "ok";
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const budget = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), options.budgetMs);
      });
      // What the session's start block showed is in the same request as the first prompt's
      // block (and stays in the conversation): ask for more, keep the rest. Only that block:
      // prompts are answered on their own, as a search would answer them.
      const ranked = (async () => {
        const shown = new Set(
          await options.storage.injectedInSession(event.namespace, event.session_id, {
            query: SESSION_START_QUERY,
          }),
        );
        const found = await search(event.namespace, query, {
          limit: options.limit + Math.min(shown.size, options.limit),
        });
        return found.filter((h) => !shown.has(h.record.record_id)).slice(0, options.limit);
      })();
      const result = await Promise.race([ranked, budget]);
      if (result === TIMED_OUT) outcome = "timeout";
      else hits = result;
    } catch (error) {
      outcome = "error";
      options.logger?.warn("retrieval failed", { error: String(error) });
    } finally {
      clearTimeout(timer);
    }
    const elapsed = performance.now() - started;
    // Past the budget the answer is empty even if the search finished: the agent must not wait.
    if (outcome === "ok" && elapsed > options.budgetMs) outcome = "timeout";
    const records: MemoryRecord[] = outcome === "ok" ? hits.map((h) => h.record) : [];
    const formatted = formatContext(records, {
      tokenBudget,
      projectRoot: event.source.project_path,
    });
    if (outcome === "ok" && formatted.record_ids.length === 0) outcome = "empty";
    const latency = Math.round((performance.now() - started) * 100) / 100;
    const scores = new Map(hits.map((h) => [h.record.record_id, h.score]));
    try {
      await options.storage.logRetrieval({
        event_id: event.event_id,
        namespace: event.namespace,
        query,
        results: formatted.record_ids.map((id) => ({ record_id: id, score: scores.get(id) ?? 0 })),
        latency_ms: latency,
        tokens: formatted.tokens,
        outcome,
      });
      options.onRetrieval?.({
        namespace: event.namespace,
        records: formatted.record_ids,
        latency_ms: latency,
      });
    } catch (error) {
      options.logger?.warn("could not log retrieval", { error: String(error) });
    }
    return { context: formatted.context, records: formatted.record_ids, latency_ms: latency };
  };
}
