/**
 * The GitHub Copilot CLI hooks (`~/.copilot/hooks/*.json`, `{"version": 1, "hooks": {…}}`,
 * Copilot CLI 1.0.102) as plans. A hook configured under a camelCase event name gets a camelCase
 * JSON payload on stdin (`sessionId`, `timestamp` in ms, `cwd`, plus the event's own fields) and
 * may print one JSON object; Copilot CLI reads its top-level `additionalContext` (not Claude
 * Code's `hookSpecificOutput`).
 *
 * - `userPromptSubmitted` (`prompt`): the session-start block and the prompt's retrieval go back
 *   as `additionalContext`, which Copilot CLI appends to the prompt inside `<system_reminder>`
 *   (when several hooks answer, the last one's wins).
 * - `postToolUse` (`toolName`, `toolArgs`, `toolResult: {resultType, textResultForLlm}`): a shell
 *   command that exits non-zero still comes here as `resultType: "success"`; its text ends with
 *   `<shellId: N completed with exit code C>`.
 * - `postToolUseFailure` (`toolName`, `toolArgs`, `error`): a tool that failed (a missing file).
 * - `agentStop` (`transcriptPath`, `stopReason`): the turn's end. The payload carries no answer:
 *   the shim reads the turn's last assistant message from the transcript (`events.jsonl`,
 *   {@linkcode copilotTurnAnswer}).
 * - `sessionStart` (`source`, `initialPrompt`) and `sessionEnd` (`reason`): planned for a
 *   hand-written hook, not installed (the first prompt carries the start block).
 *
 * @module
 */
import type { HookPlan } from "./plan.ts";
import { oneEventPlans, str, validSessionId } from "./plan.ts";
import { firstErrorLine, isOwnTool, toolUseBody } from "./tool_use.ts";

/**
 * The Copilot CLI events the installer hooks: the prompt and the turn's end, which reads the turn's
 * tool uses from the transcript (one hook process per turn, not one per tool call).
 */
export const COPILOT_HOOK_EVENTS: readonly string[] = ["userPromptSubmitted", "agentStop"];

/**
 * The tool events: planned (an older install's hooks, or a hand-written one, still fire them),
 * but the launcher ignores them, since the turn's end reads those tool uses.
 */
export const COPILOT_TOOL_EVENTS: readonly string[] = ["postToolUse", "postToolUseFailure"];

/** Copilot CLI events whose hook prints context (`additionalContext`) for the model. */
export const COPILOT_CONTEXT_EVENTS: readonly string[] = ["userPromptSubmitted", "sessionStart"];

/** Copilot CLI events that exist but that memory does not need. */
export const COPILOT_IGNORED_EVENTS: readonly string[] = [
  "preToolUse",
  "permissionRequest",
  "notification",
  "preCompact",
  "subagentStart",
  "subagentStop",
  "errorOccurred",
];

/** Copilot CLI events that only store: the agent waits for none of their delivery. */
export const COPILOT_STORE_EVENTS: readonly string[] = ["sessionEnd"];

const IGNORED = new Set(COPILOT_IGNORED_EVENTS);

// The bash tool's result ends with this line (Copilot CLI 1.0.102).
const SHELL_EXIT = /<shellId: [^>\n]* completed with exit code (-?\d+)>\s*$/;

/** Context a Copilot CLI plan needs besides the payload. */
export interface CopilotPlanOptions {
  /** The event the hook was configured for (the payload does not name it). */
  event?: string;
  /** Session id when the payload has none (it always should). */
  fallbackSessionId: () => string;
  /** Working directory when the payload has none. */
  fallbackCwd: () => string;
  /** Where to say why nothing is recorded (a shim's stderr). */
  warn?: (message: string) => void;
}

/**
 * Turns one Copilot CLI payload into a plan, or null when there is nothing to record. Copilot's
 * camelCase payloads do not name their event, so the hook command names it (its first argument).
 */
export function copilotCliPlan(
  payload: Record<string, unknown>,
  options: CopilotPlanOptions,
): HookPlan | null {
  const hook = options.event?.trim();
  if (hook === undefined || hook === "") {
    options.warn?.("copilot hook: no event named on the command line; nothing recorded");
    return null;
  }
  const sessionId = validSessionId(payload.sessionId) ?? options.fallbackSessionId();
  const cwd = str(payload.cwd)?.trim() || options.fallbackCwd();
  const { store, started, prompted, ended } = oneEventPlans({
    surface: "copilot-cli",
    hook,
    sessionId,
    cwd,
  });
  switch (hook) {
    case "sessionStart":
      // A new session's first prompt carries the start block; after a resume, print it.
      return started((str(payload.source) ?? "new") !== "resume");
    case "userPromptSubmitted":
      return prompted(str(payload.prompt));
    case "postToolUse":
    case "postToolUseFailure": {
      const toolName = str(payload.toolName)?.trim() || "unknown";
      if (isOwnTool(toolName)) return null;
      const error = hook === "postToolUseFailure"
        ? str(payload.error)?.trim() || "tool failed"
        : copilotToolError(payload.toolResult);
      return store(
        "tool_use",
        toolUseBody({
          tool_name: toolName,
          tool_input: payload.toolArgs,
          tool_response: payload.toolResult ?? {},
          error,
        }),
      );
    }
    case "agentStop": {
      const transcript = str(payload.transcriptPath)?.trim();
      // The turn is the one whose agentStop hook started at the payload's timestamp.
      const stamp = typeof payload.timestamp === "number" ? String(payload.timestamp) : undefined;
      return {
        ...store("session_summary", { type: "text", content: "" }),
        ...(transcript ? { transcript } : {}),
        ...(stamp ? { turn: stamp } : {}),
      };
    }
    case "sessionEnd":
      return ended(payload.reason);
    default:
      if (!IGNORED.has(hook)) {
        options.warn?.(`copilot hook: unknown hook "${hook.slice(0, 60)}"; nothing recorded`);
      }
      return null;
  }
}

/**
 * Why a Copilot CLI tool call that `postToolUse` reports failed, or undefined when it did not: a
 * `resultType` other than `success`, else the shell's non-zero `exit code` line at the end of the
 * text the model got (only a shell result ends with that line, so a file that merely mentions an
 * exit code is no failure).
 */
export function copilotToolError(result: unknown): string | undefined {
  if (result === null || typeof result !== "object") return undefined;
  const record = result as Record<string, unknown>;
  const text = str(record.textResultForLlm) ?? "";
  const type = str(record.resultType) ?? "success";
  if (type !== "success") return firstErrorLine(text) || `tool ${type.slice(0, 40)}`;
  const exit = SHELL_EXIT.exec(text);
  if (exit === null || exit[1] === "0") return undefined;
  return firstErrorLine(text.slice(0, exit.index)) || `exit code ${exit[1]}`;
}

/** A turn's answer as read from a Copilot CLI transcript. */
export interface CopilotTurnAnswer {
  /** The text of the turn's last assistant message, or "" when there is none (yet). */
  answer: string;
  /** The transcript holds this turn's `agentStop` hook start and its final answer. */
  complete: boolean;
}

/**
 * The answer of the turn whose `agentStop` hook fired at `stopTimestamp` (the payload's
 * `timestamp`), from a Copilot CLI transcript (`events.jsonl`, one event a line;
 * `assistant.message` carries `data.content` and the tool calls it asks for in
 * `data.toolRequests`). Copilot writes the transcript behind the hook's start, its lines not
 * always in order: the turn runs from the previous `agentStop` hook start to the next prompt
 * (`user.message`) after this one's, and it is `complete` once the file holds this hook's start
 * (its `data.input.timestamp` is the payload's) and the turn's final message (one that asks for no
 * tool). Until then the answer is the last text there is. A line that is not JSON (the cut first
 * line of a tail, a partial last line) is skipped.
 */
export function copilotTurnAnswer(
  transcript: string,
  stopTimestamp: number | undefined,
): CopilotTurnAnswer {
  let answer = "";
  let final = false;
  let stopped = false;
  for (const line of transcript.split("\n")) {
    const isStop = line.includes('"agentStop"') && line.includes('"hook.start"');
    const isPrompt = line.includes('"user.message"');
    if (!isStop && !isPrompt && !line.includes('"assistant.message"')) continue;
    let event: { type?: unknown; data?: Record<string, unknown> };
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    const data = event.data ?? {};
    if (event.type === "hook.start" && data.hookType === "agentStop") {
      const input = data.input as Record<string, unknown> | undefined;
      if (stopTimestamp !== undefined && input?.timestamp === stopTimestamp) stopped = true;
      else if (!stopped) [answer, final] = ["", false];
    } else if (event.type === "user.message") {
      if (stopped) break;
    } else if (event.type === "assistant.message") {
      const content = str(data.content)?.trim();
      const asks = Array.isArray(data.toolRequests) && data.toolRequests.length > 0;
      if (content) answer = content;
      if (!asks) final = true;
    }
  }
  return { answer, complete: stopped && final };
}

/**
 * What a Copilot CLI hook prints: one JSON object, the context in `additionalContext` for the
 * events that add context, `{}` for everything else.
 */
export function copilotHookOutput(hook: string | null, context: string): string {
  const text = context.trim();
  if (text === "" || hook === null || !COPILOT_CONTEXT_EVENTS.includes(hook)) return "{}\n";
  return JSON.stringify({ additionalContext: text }) + "\n";
}
