/**
 * The Claude Code hooks as plans: `SessionStart` (the resume block; only stored at a session's
 * `startup`, whose first prompt carries that block instead), `UserPromptSubmit` (retrieval),
 * `PostToolUse`, `PostToolUseFailure` (a failed tool fires this instead of
 * PostToolUse, with an `error` string), `Stop` (`last_assistant_message`, and the transcript
 * the shim reads the turn's tool uses from) and `SessionEnd` (no retrieval, a short timeout:
 * the agent kills it after about 1.5 s). The shim (`shims/claude_code.ts`) and the collector's
 * hook route run this same function. The installer hooks neither tool event nor SessionEnd any
 * more; an older install's hooks for them keep working until it runs again.
 *
 * @module
 */
import type { HookPlan } from "./plan.ts";
import { oneEventPlans, str, validSessionId } from "./plan.ts";
import { isOwnTool, toolUseBody } from "./tool_use.ts";

/** Hooks that exist but that memory does not need. */
const IGNORED = new Set([
  "PreToolUse",
  "Notification",
  "SubagentStop",
  "SubagentStart",
  "PreCompact",
  "PermissionRequest",
]);

/**
 * Claude Code hooks whose plan prints what it retrieves: Claude Code must wait for their answer.
 */
export const CLAUDE_RETRIEVE_HOOKS: readonly string[] = ["SessionStart", "UserPromptSubmit"];

/**
 * Claude Code hooks that only store (nothing they print matters): the hook launcher delivers
 * them in the background and returns at once (`hookFastPath` in core/launch).
 */
export const CLAUDE_STORE_HOOKS: readonly string[] = [
  // An older install's tool hooks keep firing until it runs again: they too return at once.
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  // No longer installed, but an older install's SessionEnd hook keeps firing until the user runs
  // `kiro-learn install` again: it must still return at once.
  "SessionEnd",
];

/**
 * Claude Code's tool hooks. None is installed: a turn's end reads the turn's tool uses from the
 * transcript ({@linkcode TURN_TOOLS_ARG}); the launcher ignores an older install's firings.
 */
export const CLAUDE_TOOL_HOOKS: readonly string[] = ["PostToolUse", "PostToolUseFailure"];

/**
 * The argument the installer gives the Claude Code hook of each {@linkcode CLAUDE_STORE_HOOKS}
 * event: its launcher then knows, before reading the payload, that the hook only stores, and
 * reads the payload in the background delivery (Claude Code waits for none of it). The
 * launcher takes the argument off before the shim sees its arguments.
 */
export const STORE_ONLY_ARG = "--store";

/**
 * The argument the hook launcher gives the shim at a turn's end (`Stop`): before the turn's end
 * is stored, the shim reads the turn's tool uses from the transcript Claude Code names
 * (`transcript_path`) and delivers them as the tool hooks would have. One hook firing per turn
 * instead of one per tool call: Claude Code runs its hooks one after another. Only the launcher
 * passes it, so an older install, whose tool hooks still fire, never records a tool use twice.
 */
export const TURN_TOOLS_ARG = "--turn-tools";

/**
 * `SessionStart` sources at which the hook only stores: a prompt follows right away, and the
 * session's first prompt carries the session-start block with its own (`retrieve-start`), so
 * Claude Code need not wait for the session-start hook before its first request. At the other
 * sources (`resume`, `clear`, `compact`) the hook still prints the block.
 */
export const CLAUDE_QUIET_START_SOURCES: readonly string[] = ["startup"];

/** Every `SessionStart` source Claude Code names (its hook's matchers select among them). */
export const CLAUDE_START_SOURCES: readonly string[] = ["startup", "resume", "clear", "compact"];

/** Context a Claude Code plan needs besides the payload. */
export interface ClaudePlanOptions {
  /** Session id when the payload has none (it always should). */
  fallbackSessionId: () => string;
  /** Working directory when the payload has none. */
  fallbackCwd: () => string;
  /** Where to say why nothing is recorded (a shim's stderr). */
  warn?: (message: string) => void;
}

/** Turns one Claude Code payload into a plan, or null when there is nothing to record. */
export function claudeCodePlan(
  payload: Record<string, unknown>,
  options: ClaudePlanOptions,
): HookPlan | null {
  const hook = str(payload.hook_event_name);
  if (hook === undefined || hook === "") {
    options.warn?.("claude hook: payload has no hook_event_name; nothing recorded");
    return null;
  }
  const sessionId = validSessionId(payload.session_id) ?? options.fallbackSessionId();
  const cwd = str(payload.cwd)?.trim() || options.fallbackCwd();
  const { store, started, prompted, ended } = oneEventPlans({
    surface: "claude-code",
    hook,
    sessionId,
    cwd,
  });
  const toolName = str(payload.tool_name)?.trim() || "unknown";
  switch (hook) {
    case "SessionStart":
      return started(CLAUDE_QUIET_START_SOURCES.includes(str(payload.source) ?? ""));
    case "UserPromptSubmit":
      return prompted(str(payload.prompt));
    case "PostToolUse":
      if (isOwnTool(toolName)) return null;
      return store(
        "tool_use",
        toolUseBody({
          tool_name: toolName,
          tool_input: payload.tool_input,
          tool_response: payload.tool_response,
        }),
      );
    case "PostToolUseFailure": {
      if (isOwnTool(toolName)) return null;
      const error = str(payload.error) ?? "tool failed";
      return store(
        "tool_use",
        toolUseBody({
          tool_name: toolName,
          tool_input: payload.tool_input,
          tool_response: { error },
          error,
        }),
      );
    }
    case "Stop": {
      const stop = store("session_summary", {
        type: "text",
        content: str(payload.last_assistant_message) ?? "",
      });
      const transcript = str(payload.transcript_path)?.trim();
      return transcript ? { ...stop, transcript } : stop;
    }
    case "SessionEnd":
      return ended(payload.reason);
    default:
      if (!IGNORED.has(hook)) {
        options.warn?.(`claude hook: unknown hook "${hook.slice(0, 60)}"; nothing recorded`);
      }
      return null;
  }
}
