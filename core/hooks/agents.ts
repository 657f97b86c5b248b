/**
 * The agents whose hooks hand one JSON payload on stdin (Claude Code, Codex CLI, Gemini CLI, Copilot CLI), as
 * the hook launcher's fast path and the collector's hook routes both need them: the plan, what
 * the hook prints, and which hooks the agent waits on. One table, so the launcher (plain sh, in
 * core/launch) and the route (in the collector) never disagree on an agent's hooks.
 *
 * @module
 */
import {
  CLAUDE_QUIET_START_SOURCES,
  CLAUDE_RETRIEVE_HOOKS,
  CLAUDE_STORE_HOOKS,
  CLAUDE_TOOL_HOOKS,
  claudeCodePlan,
  type ClaudePlanOptions,
} from "./claude_code.ts";
import {
  COPILOT_CONTEXT_EVENTS,
  COPILOT_IGNORED_EVENTS,
  COPILOT_STORE_EVENTS,
  COPILOT_TOOL_EVENTS,
  copilotCliPlan,
  copilotHookOutput,
} from "./copilot_cli.ts";
import { CODEX_IGNORED_HOOKS, codexHookOutput, codexPlan } from "./codex.ts";
import {
  GEMINI_CONTEXT_EVENTS,
  GEMINI_IGNORED_EVENTS,
  geminiCliPlan,
  geminiHookOutput,
} from "./gemini_cli.ts";
import type { HookPlan } from "./plan.ts";

/** The agents whose hooks take the launcher's fast path. */
export type FastPathSurface = "claude-code" | "codex" | "gemini-cli" | "copilot-cli";

/** What an agent's plan gets besides the payload. */
export interface HookAgentPlanOptions extends ClaudePlanOptions {
  /** The event the hook command names (agents whose payloads do not name it: Copilot CLI). */
  event?: string;
}

/** What the fast path knows of one agent's hooks. */
export interface HookAgent {
  /** The agent's plan of one payload (the shim's own). */
  plan(payload: Record<string, unknown>, options: HookAgentPlanOptions): HookPlan | null;
  /**
   * Where the hook's event is named: the payload's `hook_event_name` (default), or the hook
   * command's first argument (Copilot CLI's camelCase payloads name none), which the launcher
   * classifies without reading the payload and sends to the route in a header.
   */
  eventFrom?: "payload" | "argument";
  /** The payload's session id field. */
  sessionField: string;
  /** What the hook prints for the context it got (`""` when none) and its hook (null: none). */
  output(hook: string | null, context: string): string;
  /** What the hook prints when it says nothing: before it returns early, or stores only. */
  silent: string;
  /** Hooks whose answer the agent waits for (their context reaches the model). */
  retrieve: readonly string[];
  /** `SessionStart` sources at which the start only stores (the first prompt carries its block). */
  quietStarts: readonly string[];
  /**
   * The turn's end: the shim delivers it, in the background, after the turn's tool uses it reads
   * from the agent's own files (Claude Code's transcript, Codex's rollout).
   */
  turnEnd?: string;
  /**
   * Whether the turn's end, in the background, first waits for the agent's process to exit (at
   * most `TURN_END_SETTLE_S`): the shim's Deno start then never shares the CPU with a headless
   * session's own shutdown, which the user waits for. Off where the agent may end its hooks'
   * processes as it exits (Claude Code ends a background hook's process group).
   */
  turnEndAfterExit?: boolean;
  /** Hooks that record nothing: the launcher returns at once. */
  ignored: readonly string[];
  /** Hooks that only store: delivered in the background, the agent waits for none of it. */
  store: readonly string[];
}

/** Prints the context as is (Claude Code and Codex add a hook's plain stdout to the model's). */
function plainOutput(_hook: string | null, context: string): string {
  return context;
}

/** Each agent's hooks, as the fast path treats them. */
export const HOOK_AGENTS: Readonly<Record<FastPathSurface, HookAgent>> = Object.freeze({
  "claude-code": {
    plan: claudeCodePlan,
    sessionField: "session_id",
    output: plainOutput,
    silent: "",
    retrieve: CLAUDE_RETRIEVE_HOOKS,
    quietStarts: CLAUDE_QUIET_START_SOURCES,
    turnEnd: "Stop",
    // An older install's tool hooks still fire until it runs again: the turn's end reads those
    // tool uses, so storing them here too would record each twice.
    ignored: CLAUDE_TOOL_HOOKS,
    store: CLAUDE_STORE_HOOKS,
  },
  codex: {
    plan: codexPlan,
    sessionField: "session_id",
    output: codexHookOutput,
    silent: "",
    retrieve: CLAUDE_RETRIEVE_HOOKS,
    quietStarts: CLAUDE_QUIET_START_SOURCES,
    // Codex's PostToolUse says nothing of a failed command's exit code; its rollout does.
    turnEnd: "Stop",
    turnEndAfterExit: true,
    ignored: CODEX_IGNORED_HOOKS,
    store: ["SessionEnd"],
  },
  "gemini-cli": {
    plan: geminiCliPlan,
    sessionField: "session_id",
    output: geminiHookOutput,
    // Gemini CLI reads an empty stdout's stderr as a message for the user: always one object.
    silent: "{}\n",
    retrieve: GEMINI_CONTEXT_EVENTS,
    quietStarts: ["startup"],
    // The turn's tool calls are in the session's chat file by then (Gemini CLI records each
    // before its result goes back to the model): one firing per turn, not one per tool call.
    turnEndAfterExit: true,
    turnEnd: "AfterAgent",
    // An older install's AfterTool hook fires until it runs again: the turn's end reads those
    // tool uses, so storing them here too would record each twice.
    ignored: ["AfterTool", ...GEMINI_IGNORED_EVENTS],
    store: ["SessionEnd"],
  },
  "copilot-cli": {
    plan: copilotCliPlan,
    eventFrom: "argument",
    sessionField: "sessionId",
    output: copilotHookOutput,
    // Like Gemini CLI, one JSON object on every path.
    silent: "{}\n",
    retrieve: COPILOT_CONTEXT_EVENTS,
    // The first prompt carries the start block; an installed sessionStart is not ours.
    quietStarts: [],
    // The payload carries no answer: the shim reads it from the session's transcript.
    turnEndAfterExit: true,
    turnEnd: "agentStop",
    // The turn's end reads the tool uses from the transcript; an older install's tool hooks fire
    // until it runs again, so storing them here too would record each twice.
    ignored: [...COPILOT_TOOL_EVENTS, ...COPILOT_IGNORED_EVENTS],
    store: COPILOT_STORE_EVENTS,
  },
});
