/**
 * The daily LLM budget, shared by extraction, the reconciliation judge and compaction. Its unit
 * is what crosses the ACP pipe, in UTF-8 bytes, both ways: every message we write to the agent
 * (the prompt with the instructions it carries, the handshake) and every message the agent
 * writes back (the reply, thoughts, tool calls). What the agent adds on its own way to the model
 * (its system prompt, tool definitions) never crosses that pipe and cannot be counted here.
 *
 * Every session reserves its prompt before it starts, in one transaction, so no session starts
 * past the cap even with two running at once; once it ends, successful or not, the reservation
 * is trued up to what it really exchanged: the rest of what it sent and everything it received
 * added, or, for a session that failed before its whole prompt crossed, the part that did not
 * cross given back.
 *
 * @module
 */
import type { Storage } from "@kiro-learn/core/storage";
import type { WireSpend } from "./prompt_runner.ts";

/** What an LLM session asks of the budget. */
export interface LlmBudget {
  /** Reserves `promptBytes` for one session; false when that would pass today's cap. */
  reserve(promptBytes: number): Promise<boolean>;
  /**
   * Records what a session exchanged: `spend.sent` instead of the `reserved` bytes (more or
   * fewer), and everything it received.
   */
  settle(reserved: number, spend: WireSpend): Promise<void>;
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
    settle: (reserved, spend) =>
      storage.addLlmUsage({
        project_id: options.project_id,
        purpose: options.purpose,
        // Negative when less than the reservation crossed: the difference is given back.
        chars_sent: spend.sent - reserved,
        chars_received: spend.received,
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
