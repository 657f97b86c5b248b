/**
 * The OpenAI Codex CLI hooks as plans. Codex's command hooks take Claude Code's payload shape
 * (`hook_event_name`, `session_id`, `cwd`, `prompt`, `last_assistant_message`, `transcript_path`)
 * and, like Claude Code, add a command hook's plain stdout to the model's context at
 * `SessionStart` and `UserPromptSubmit`. So the Claude Code plan serves, filed under the agent's
 * own name (`codex`), with two differences:
 *
 * - Codex's `PostToolUse` reports a failed shell command with an empty `tool_response` and no
 *   exit code (Codex CLI 0.171.0), so the tool hooks are not used at all: the turn's end (`Stop`,
 *   which names its `turn_id`) reads the turn's tool uses, exit codes included, from the
 *   session's rollout file (`transcript_path`; `shims/_codex_rollout.ts`). One hook firing per
 *   turn instead of one per tool call.
 * - A tool hook that fires anyway (a hand-written config) records nothing: the turn's end does.
 *
 * @module
 */
import { claudeCodePlan } from "./claude_code.ts";
import type { HookPlan } from "./plan.ts";
import { str } from "./plan.ts";

/** Codex hooks that exist but that the plan leaves to the turn's end, or that memory does not need. */
export const CODEX_IGNORED_HOOKS: readonly string[] = [
  "PreToolUse",
  "PostToolUse",
  "PermissionRequest",
  "PreCompact",
  "PostCompact",
  "SubagentStart",
  "SubagentStop",
  "StopFailure",
];

/** Context a Codex plan needs besides the payload. */
export interface CodexPlanOptions {
  /** Session id when the payload has none (it always should). */
  fallbackSessionId: () => string;
  /** Working directory when the payload has none. */
  fallbackCwd: () => string;
  /** Where to say why nothing is recorded (a shim's stderr). */
  warn?: (message: string) => void;
}

/** Turns one Codex CLI hook payload into a plan, or null when there is nothing to record. */
export function codexPlan(
  payload: Record<string, unknown>,
  options: CodexPlanOptions,
): HookPlan | null {
  const hook = str(payload.hook_event_name) ?? "";
  if (CODEX_IGNORED_HOOKS.includes(hook)) return null;
  const warn = options.warn;
  const plan = claudeCodePlan(payload, {
    fallbackSessionId: options.fallbackSessionId,
    fallbackCwd: options.fallbackCwd,
    warn: warn && ((message) => warn(message.replace(/^claude hook:/, "codex hook:"))),
  });
  if (plan === null) return null;
  const turn = str(payload.turn_id)?.trim();
  return { ...plan, surface: "codex", ...(hook === "Stop" && turn ? { turn } : {}) };
}

/**
 * What a Codex hook prints: its context as plain text, which Codex adds to the model's context.
 * Codex reads a stdout that opens with `{` or `[` as the hook's JSON output, and fails the hook
 * when it is not (Codex CLI 0.171.0: "hook returned invalid user prompt submit JSON output"), so
 * such a context (the `[kiro-learn] …` line of a session without a collector) gets a plain line
 * ahead of it.
 */
export function codexHookOutput(_hook: string | null, context: string): string {
  return /^\s*[[{]/.test(context) ? `kiro-learn:\n${context}` : context;
}
