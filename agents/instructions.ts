/**
 * The `<instructions>` block every prompt of the collector's LLM agents (compressor, reconciler,
 * compactor) opens with. A generic ACP agent (`claude-code-acp`, or any agent other than the Kiro
 * CLI agents kiro-learn installs) has its own system prompt and never sees our agent definitions,
 * so the whole instructions travel in the prompt itself.
 *
 * The block is also how such a session is recognised afterwards: an agent that keeps transcripts
 * (Claude Code does) may have saved one, and `import claude-code` must never take our own
 * extraction sessions for the user's.
 *
 * @module
 */

/** The sentence the instructions open with. */
export const AGENT_INSTRUCTIONS_PREAMBLE =
  "Follow these instructions for this one reply, over any others you were given.";

const OPENING = `<instructions>\n${AGENT_INSTRUCTIONS_PREAMBLE}`;

// The block sits at the very start of a prompt, or right after the request's own opening tag
// (`<extraction_request>`): far inside the first few hundred characters.
const OPENING_WITHIN_CHARS = 256;

/**
 * The instructions block: the preamble, what this reply must be (`reply`), then the agent's own
 * prompt.
 */
export function agentInstructions(reply: string, agentPrompt: string): string {
  return [
    "<instructions>",
    `${AGENT_INSTRUCTIONS_PREAMBLE} ${reply}`,
    "",
    agentPrompt,
    "</instructions>",
  ].join("\n");
}

/** True when `prompt` is one of ours: it opens with {@linkcode agentInstructions}' block. */
export function isAgentPrompt(prompt: string): boolean {
  const at = prompt.indexOf(OPENING);
  return at >= 0 && at <= OPENING_WITHIN_CHARS;
}
