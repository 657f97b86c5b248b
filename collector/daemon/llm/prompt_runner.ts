/**
 * The one shape every LLM caller (extraction, judge, compaction) sees: one prompt in, the
 * agent's whole reply out, in a fresh single-use session.
 *
 * @module
 */

/**
 * Runs one single-use ACP session: the agent's whole reply to one prompt. A session that fails
 * rejects with an error that carries, when the runner could measure it, what crossed the wire
 * before it failed (see {@linkcode failedSpend}).
 */
export type PromptRunner = (
  command: string[],
  prompt: string,
  options: {
    timeoutMs: number;
    /** Aborting ends the session at once and kills the agent's whole process group. */
    signal?: AbortSignal;
  },
) => Promise<PromptReply>;

/** One session's reply, and what it cost on the wire when the runner could measure it. */
export interface PromptReply {
  /** The agent's reply text. */
  text: string;
  /** Bytes written to the agent (every ACP message, the prompt included). */
  sentBytes?: number;
  /** Bytes read from the agent (the reply and everything else it streamed). */
  receivedBytes?: number;
  /** Tokens in the model's context, as the agent reported them (ACP `usage_update`). */
  contextTokens?: number | null;
}

/** What one session spent, in the budget's unit (UTF-8 bytes of ACP messages). */
export interface WireSpend {
  /** Bytes sent to the agent. */
  sent: number;
  /** Bytes received from the agent. */
  received: number;
}

/** UTF-8 bytes of `text`: what reserving a prompt costs before its session starts. */
export function promptBytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

/**
 * What a session spent: the runner's wire counts, or (a runner that cannot measure) the prompt
 * and reply themselves.
 */
export function wireSpend(prompt: string, reply: PromptReply): WireSpend {
  return {
    sent: reply.sentBytes ?? promptBytes(prompt),
    received: reply.receivedBytes ?? promptBytes(reply.text),
  };
}

/** An error of a failed session that says what crossed the wire before the session failed. */
export interface SpendCarrier {
  /** Bytes sent to and received from the agent before the failure. */
  spend: WireSpend;
}

/**
 * What a failed session spent: what its error says crossed the wire (the agent may have died
 * before the prompt was written, or after streaming part of a reply), or, from a runner that
 * cannot measure, the whole prompt sent and nothing received.
 */
export function failedSpend(prompt: string, error: unknown): WireSpend {
  const spend = (error as Partial<SpendCarrier> | null)?.spend;
  if (
    spend !== undefined && Number.isSafeInteger(spend.sent) && spend.sent >= 0 &&
    Number.isSafeInteger(spend.received) && spend.received >= 0
  ) {
    return { sent: spend.sent, received: spend.received };
  }
  return { sent: promptBytes(prompt), received: 0 };
}
