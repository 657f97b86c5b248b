/**
 * The Gemini CLI hooks (`settings.json` `hooks`, Gemini CLI 0.61) as plans. Every hook gets one
 * JSON payload on stdin (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`,
 * plus the event's own fields) and must print one JSON object on stdout: Gemini CLI reads the
 * hook's stderr as its output when stdout is empty, and shows plain text to the user.
 *
 * - `BeforeAgent` (`prompt`): once per prompt, before the first model request of the turn; the
 *   session-start block and the prompt's retrieval go back as
 *   `hookSpecificOutput.additionalContext`, which Gemini CLI appends to that request.
 * - `AfterTool` (`tool_name`, `tool_input`, `tool_response: {llmContent, returnDisplay,
 *   error?}`): a failed tool sets `error`; a shell command that exits non-zero does not, its
 *   `llmContent` says `Exit Code: N`.
 * - `AfterAgent` (`prompt`, `prompt_response`): the turn's end, with the turn's answer; its
 *   `transcript_path` names the session's chat file, where the launcher's shim reads the turn's
 *   tool uses (`AfterTool` is planned for a hand-written or older hook, not installed).
 * - `SessionStart` (`source`: startup, resume, clear) and `SessionEnd` (`reason`): planned for a
 *   hand-written hook, not installed (a lifecycle note is never memory, and the first prompt
 *   carries the start block).
 *
 * @module
 */
import type { HookPlan } from "./plan.ts";
import { oneEventPlans, str, validSessionId } from "./plan.ts";
import { firstErrorLine, isOwnTool, toolUseBody } from "./tool_use.ts";

/**
 * The Gemini CLI events the installer hooks: the prompt, and the turn's end, whose shim reads the
 * turn's tool uses from the session's chat file (`shims/_gemini_transcript.ts`) instead of one
 * `AfterTool` firing per tool call.
 */
export const GEMINI_HOOK_EVENTS: readonly string[] = ["BeforeAgent", "AfterAgent"];

/** Gemini CLI events whose hook prints context (`additionalContext`) for the model. */
export const GEMINI_CONTEXT_EVENTS: readonly string[] = ["BeforeAgent", "SessionStart"];

/** Gemini CLI events that exist but that memory does not need. */
export const GEMINI_IGNORED_EVENTS: readonly string[] = [
  "BeforeTool",
  "BeforeModel",
  "AfterModel",
  "BeforeToolSelection",
  "Notification",
  "PreCompress",
];

// Context another hook added at the session's start, which Gemini CLI puts ahead of the prompt.
const LEADING_HOOK_CONTEXT = /^(?:\s*<hook_context>[^]*?<\/hook_context>)+\s*/;

/** Context a Gemini CLI plan needs besides the payload. */
export interface GeminiPlanOptions {
  /** Session id when the payload has none (it always should). */
  fallbackSessionId: () => string;
  /** Working directory when the payload has none. */
  fallbackCwd: () => string;
  /** Where to say why nothing is recorded (a shim's stderr). */
  warn?: (message: string) => void;
}

/** Turns one Gemini CLI payload into a plan, or null when there is nothing to record. */
export function geminiCliPlan(
  payload: Record<string, unknown>,
  options: GeminiPlanOptions,
): HookPlan | null {
  const hook = str(payload.hook_event_name);
  if (hook === undefined || hook === "") {
    options.warn?.("gemini hook: payload has no hook_event_name; nothing recorded");
    return null;
  }
  const sessionId = validSessionId(payload.session_id) ?? options.fallbackSessionId();
  const cwd = str(payload.cwd)?.trim() || options.fallbackCwd();
  const { store, started, prompted, ended } = oneEventPlans({
    surface: "gemini-cli",
    hook,
    sessionId,
    cwd,
  });
  switch (hook) {
    case "SessionStart":
      // At startup the first prompt carries the start block; after a resume or a clear, print it.
      return started((str(payload.source) ?? "startup") === "startup");
    case "BeforeAgent":
      return prompted(str(payload.prompt)?.replace(LEADING_HOOK_CONTEXT, ""));
    case "AfterTool": {
      const toolName = str(payload.tool_name)?.trim() || "unknown";
      if (isOwnTool(toolName)) return null;
      return store(
        "tool_use",
        toolUseBody({
          tool_name: toolName,
          tool_input: payload.tool_input,
          tool_response: payload.tool_response,
          error: geminiToolError(payload.tool_response),
        }),
      );
    }
    case "AfterAgent": {
      const end = store("session_summary", {
        type: "text",
        content: str(payload.prompt_response) ?? "",
      });
      const transcript = str(payload.transcript_path)?.trim();
      return transcript ? { ...end, transcript } : end;
    }
    case "SessionEnd":
      return ended(payload.reason);
    default:
      if (!GEMINI_IGNORED_EVENTS.includes(hook)) {
        options.warn?.(`gemini hook: unknown hook "${hook.slice(0, 60)}"; nothing recorded`);
      }
      return null;
  }
}

/**
 * Why a Gemini CLI tool call failed, or undefined when it did not: the response's `error`
 * (`{message, type}`), else a non-zero `Exit Code: N` in the text the model got (`llmContent`).
 */
export function geminiToolError(response: unknown): string | undefined {
  if (response === null || typeof response !== "object") return undefined;
  const record = response as Record<string, unknown>;
  const error = record.error as Record<string, unknown> | string | undefined;
  if (typeof error === "string" && error.trim() !== "") return error;
  if (error !== null && typeof error === "object") {
    const message = str(error.message)?.trim();
    return message || str(error.type) || "tool failed";
  }
  const text = llmText(record.llmContent);
  const exit = /^Exit Code: (-?\d+)$/m.exec(text);
  if (exit === null || exit[1] === "0") return undefined;
  // The shell tool's text is `Output: <output>` then `Exit Code: N`: the output's telling line.
  const output = /^Output: ([^]*?)\n(?:Error|Exit Code): /m.exec(text)?.[1] ?? "";
  const line = output === "(empty)" ? "" : firstErrorLine(output);
  return line || `exit code ${exit[1]}`;
}

// `llmContent` is a string or a list of parts (`{text}`, …).
function llmText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(llmText).join("\n");
  if (content !== null && typeof content === "object") {
    return str((content as Record<string, unknown>).text) ?? "";
  }
  return "";
}

/**
 * What a Gemini CLI hook prints: always one JSON object (Gemini CLI would read an empty stdout's
 * stderr as a message for the user). The context goes in `hookSpecificOutput.additionalContext`
 * for the events that add context, and nothing else is ever said.
 */
export function geminiHookOutput(hook: string | null, context: string): string {
  const text = context.trim();
  if (text === "" || hook === null || !GEMINI_CONTEXT_EVENTS.includes(hook)) return "{}\n";
  return JSON.stringify({ hookSpecificOutput: { hookEventName: hook, additionalContext: text } }) +
    "\n";
}
