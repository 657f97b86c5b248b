/**
 * The one shape every LLM caller (extraction, judge, compaction) sees: one prompt in, the
 * agent's whole reply out, in a fresh single-use session.
 *
 * @module
 */

/** Runs one single-use ACP session: the agent's whole reply to one prompt. */
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
