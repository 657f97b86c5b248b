/**
 * The LLM extractor: one compressor session per attempt, garbage retried in a fresh session, at
 * most `maxAttempts` attempts, every session counted against the global semaphore.
 *
 * @module
 */
import { agentInstructions, COMPRESSOR_AGENT } from "@kiro-learn/agents";
import { type ParsedRecord, parseMemoryRecords } from "@kiro-learn/core/xml";
import {
  BudgetExhaustedError,
  failedSpend,
  type LlmBudget,
  promptBytes,
  type PromptReply,
  type PromptRunner,
  type Semaphore,
  wireSpend,
} from "../llm/mod.ts";

/** The reply was garbage (or the session failed) on every attempt. */
export class ExtractionFailedError extends Error {
  /** Sessions spawned. */
  attempts: number;
  /** Creates the error. */
  constructor(message: string, attempts: number) {
    super(message);
    this.name = "ExtractionFailedError";
    this.attempts = attempts;
  }
}

/** Result of one chunk's extraction. */
export interface LlmExtraction {
  /** Records (empty for a skip). */
  records: ParsedRecord[];
  /** True when the model said there was nothing to remember. */
  skipped: boolean;
  /** Sessions spawned. */
  attempts: number;
  /** Bytes sent to the agent over all attempts (every ACP message, the prompt included). */
  chars_sent: number;
  /** Bytes received from the agent over all attempts (the reply and all else it streamed). */
  chars_received: number;
}

/**
 * Wraps framed observations in the request the compressor expects. The compressor's whole
 * instructions travel in the prompt itself: a generic ACP agent (`claude-code-acp`, or any agent
 * other than `kiro-cli acp --agent kiro-learn-compressor`) has its own system prompt and never
 * sees the compressor's agent definition.
 */
export function extractionPrompt(observationsXml: string): string {
  return [
    "<extraction_request>",
    agentInstructions(
      "You need no tools and must not use any: read the observations and answer with XML only.",
      COMPRESSOR_AGENT.prompt,
    ),
    "<observations>",
    observationsXml,
    "</observations>",
    "</extraction_request>",
  ].join("\n");
}

/** Extracts records from framed XML with the compressor agent. */
export async function extractWithAgent(
  observationsXml: string,
  options: {
    runner: PromptRunner;
    command: string[];
    timeoutMs: number;
    maxAttempts: number;
    semaphore: Semaphore;
    /** Every session reserves its prompt here first; none starts past the daily cap. */
    budget?: LlmBudget;
    onAttempt?: (info: {
      attempt: number;
      chars_sent: number;
      chars_received: number;
      context_tokens?: number | null;
    }) => void;
  },
): Promise<LlmExtraction> {
  const prompt = extractionPrompt(observationsXml);
  const reserved = promptBytes(prompt);
  let chars_sent = 0;
  let chars_received = 0;
  let lastProblem = "";
  for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
    if (options.budget && !(await options.budget.reserve(reserved))) {
      throw new BudgetExhaustedError();
    }
    let reply: PromptReply;
    try {
      reply = await options.semaphore.run(() =>
        options.runner(options.command, prompt, { timeoutMs: options.timeoutMs })
      );
    } catch (error) {
      // What really crossed before it failed: maybe not the whole prompt, maybe part of a reply.
      const spend = failedSpend(prompt, error);
      chars_sent += spend.sent;
      chars_received += spend.received;
      await options.budget?.settle(reserved, spend);
      options.onAttempt?.({ attempt, chars_sent: spend.sent, chars_received: spend.received });
      lastProblem = error instanceof Error ? error.message : String(error);
      continue;
    }
    const text = reply.text;
    const spend = wireSpend(prompt, reply);
    chars_sent += spend.sent;
    chars_received += spend.received;
    await options.budget?.settle(reserved, spend);
    options.onAttempt?.({
      attempt,
      chars_sent: spend.sent,
      chars_received: spend.received,
      context_tokens: reply.contextTokens,
    });
    const parsed = parseMemoryRecords(text);
    if (parsed.kind === "skip") {
      return { records: [], skipped: true, attempts: attempt, chars_sent, chars_received };
    }
    if (parsed.kind === "records") {
      return {
        records: parsed.records,
        skipped: false,
        attempts: attempt,
        chars_sent,
        chars_received,
      };
    }
    lastProblem = text.trim() === ""
      ? "empty reply (the agent said nothing: no <memory_record> and no <skip/>)"
      : `garbage reply (${text.length} chars, no <memory_record> or <skip/>)`;
  }
  throw new ExtractionFailedError(
    `extraction failed after ${options.maxAttempts} attempts: ${lastProblem}`,
    options.maxAttempts,
  );
}
