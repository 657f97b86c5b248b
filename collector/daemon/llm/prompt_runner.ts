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
) => Promise<{ text: string }>;
