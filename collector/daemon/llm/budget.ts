/**
 * The daily LLM budget, shared by extraction, the reconciliation judge and compaction: every
 * session reserves its prompt's characters before it starts, in one transaction, so the cap is
 * honoured exactly even with two sessions running at once and with retries.
 *
 * @module
 */
import type { Storage } from "@kiro-learn/core/storage";

/** What an LLM session asks of the budget. */
export interface LlmBudget {
  /** Reserves `promptChars` for one session; false when that would pass today's cap. */
  reserve(promptChars: number): Promise<boolean>;
  /** Records the characters the session received. */
  settle(replyChars: number): Promise<void>;
}

/** The budget a project's sessions of one purpose (`extract`, `reconcile`, `compact`) draw on. */
export function llmBudget(
  storage: Storage,
  options: { project_id: string; purpose: string; capChars: number },
): LlmBudget {
  return {
    reserve: (chars) =>
      storage.reserveLlmUsage({
        project_id: options.project_id,
        purpose: options.purpose,
        chars,
        cap: options.capChars,
      }),
    settle: (chars) =>
      storage.addLlmUsage({
        project_id: options.project_id,
        purpose: options.purpose,
        chars_sent: 0,
        chars_received: chars,
        calls: 0,
      }),
  };
}

/** The cap stopped a session from starting. */
export class BudgetExhaustedError extends Error {
  /** Creates the error. */
  constructor() {
    super("the daily LLM budget is spent");
    this.name = "BudgetExhaustedError";
  }
}
