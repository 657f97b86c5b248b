/**
 * Recognises the Claude Code transcripts of kiro-learn's own LLM agents, so that
 * `import claude-code` never imports them as the user's sessions. The collector runs its agents
 * in the data dir's agent folder with transcripts turned off; this is the second line of
 * defence, for sessions an older kiro-learn left in a project's folder (it ran its agents in the
 * collector's working directory) or an agent that ignores the request not to save them.
 *
 * A session is ours when it ran in the agent folder, or when its first prompt opens with the
 * instructions block every prompt of our agents opens with.
 *
 * @module
 */
import { isAgentPrompt } from "@kiro-learn/agents";

// The first prompt comes within the first few lines (after the client's bookkeeping); a
// transcript that has none by then is not one of our single-prompt sessions.
const MAX_LINES = 200;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** The text of a user message's content (a string, or text blocks). */
function promptText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => isObject(b) && b.type === "text" ? String(b.text ?? "") : "")
    .join("\n");
}

/**
 * True when the transcript at `path` is a session of kiro-learn's own agents: it ran in
 * `agentWorkdir`, or its first prompt is one of ours. Reads only up to that first prompt.
 */
export async function isOwnAgentSession(
  path: string,
  options: { agentWorkdir: string },
): Promise<boolean> {
  const workdirs = new Set([options.agentWorkdir]);
  try {
    workdirs.add(await Deno.realPath(options.agentWorkdir));
  } catch {
    // Not created yet (no agent ran): the configured path is the one to compare.
  }
  for await (const raw of firstLines(path, MAX_LINES)) {
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      continue;
    }
    if (!isObject(line)) continue;
    if (typeof line.cwd === "string" && workdirs.has(line.cwd)) return true;
    if (line.type !== "user" || line.isMeta === true || !isObject(line.message)) continue;
    return isAgentPrompt(promptText(line.message.content));
  }
  return false;
}

/** The first `max` lines of a file, read as they are needed. */
async function* firstLines(path: string, max: number): AsyncGenerator<string> {
  // Leaving the loop early cancels the stream, which closes the file.
  const file = await Deno.open(path);
  let buffered = "";
  let count = 0;
  for await (const chunk of file.readable.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (++count >= max) return;
    }
  }
  if (buffered !== "") yield buffered;
}
