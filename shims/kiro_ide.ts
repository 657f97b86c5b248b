/**
 * Kiro IDE 0.x hook shim (`.kiro.hook` files, `then.type: "runCommand"`). The hook type comes
 * as the first argument (`promptSubmit`, `postToolUse`, `agentStop`) and the payload in the
 * `USER_PROMPT` environment variable (camelCase JSON for tool hooks). The IDE opens stdin and
 * never closes it, so this entry never reads stdin.
 *
 * @module
 */
import type { ShimEnv } from "./env.ts";
import { type HookPlan, type PlanInput, processCwd, runShim, str } from "./run.ts";
import { agentPidFromArgs, kiroSessionId } from "./session.ts";
import { note } from "./_stderr.ts";
import { isOwnTool, toolUseBody } from "@kiro-learn/core/hooks";
import { clientId } from "./transport.ts";

/** Context an IDE 0.x plan needs besides its arguments. */
export interface IdePlanOptions {
  /** Permitted environment (`USER_PROMPT` holds the payload). */
  env: ShimEnv;
  /** Session id (defaults to {@linkcode kiroSessionId}). */
  sessionId?: () => string;
  /** Working directory (defaults to the process's: the IDE runs hooks in the workspace). */
  cwd?: () => string;
}

/** Keys under which IDE builds that send the prompt as JSON put its text. */
const PROMPT_KEYS = ["prompt", "userPrompt", "user_prompt", "message", "text"] as const;

/**
 * The prompt in `USER_PROMPT`: the text itself, or (Kiro IDE 0.12 and later send a JSON object)
 * the text under its prompt key. JSON without such a key stays as it came: it may be what the
 * user typed.
 */
export function promptText(payload: string): string {
  const trimmed = payload.trim();
  if (!trimmed.startsWith("{")) return payload;
  try {
    const value = JSON.parse(trimmed);
    for (const key of PROMPT_KEYS) {
      if (typeof value?.[key] === "string") return value[key];
    }
  } catch {
    // Not JSON: a prompt that starts with a brace.
  }
  return payload;
}

/** Turns an IDE 0.x hook firing into a plan, or null when there is nothing to record. */
export function kiroIdePlan(args: readonly string[], options: IdePlanOptions): HookPlan | null {
  const hook = args.find((arg) => !arg.startsWith("--"));
  if (hook === undefined) {
    note("kiro ide hook: missing hook type argument (promptSubmit, postToolUse or agentStop)");
    return null;
  }
  const payload = options.env.USER_PROMPT ?? "";
  const base = () => ({
    surface: "kiro-ide" as const,
    hook,
    sessionId: (options.sessionId ??
      (() =>
        kiroSessionId({
          env: options.env,
          hostname: clientId(),
          agentPid: agentPidFromArgs(args),
        })))(),
    cwd: (options.cwd ?? processCwd)(),
  });
  switch (hook) {
    case "promptSubmit": {
      const prompt = promptText(payload);
      if (prompt.trim() === "") return null;
      return {
        ...base(),
        events: [{
          kind: "prompt",
          body: { type: "text", content: prompt },
          query: "retrieve",
          print: true,
        }],
        timeout: "retrieve",
      };
    }
    case "postToolUse": {
      if (payload.trim() === "") {
        note("kiro ide hook: postToolUse without a payload; nothing recorded");
        return null;
      }
      const call = parseToolPayload(payload);
      if (isOwnTool(call.tool_name)) return null;
      return {
        ...base(),
        events: [{ kind: "tool_use", body: toolUseBody(call), query: "", print: false }],
        timeout: "store",
      };
    }
    case "agentStop":
      // The IDE sends agentStop with an empty payload (kirodotdev/Kiro#6258): nothing to say.
      if (payload.trim() === "") return null;
      return {
        ...base(),
        events: [{
          kind: "session_summary",
          body: { type: "text", content: payload },
          query: "",
          print: false,
        }],
        timeout: "store",
      };
    default:
      note(`kiro ide hook: unknown hook "${hook.slice(0, 60)}"; nothing recorded`);
      return null;
  }
}

/** Maps the IDE's camelCase tool payload; prose that is not JSON is kept as the result. */
function parseToolPayload(payload: string) {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return { tool_name: "unknown", tool_input: {}, tool_response: { result: payload } };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { tool_name: "unknown", tool_input: {}, tool_response: { result: value } };
  }
  const record = value as Record<string, unknown>;
  const toolArgs = record.toolArgs;
  const success = typeof record.toolSuccess === "boolean" ? record.toolSuccess : undefined;
  const response: Record<string, unknown> = { result: record.toolResult ?? "" };
  if (success !== undefined) response.success = success;
  return {
    tool_name: str(record.toolName)?.trim() || "unknown",
    tool_input: toolArgs !== null && typeof toolArgs === "object" ? toolArgs : {},
    tool_response: response,
    success,
  };
}

/** Plans from argv and the environment; stdin is deliberately never touched. */
export function planFromArgs(input: PlanInput): HookPlan | null {
  return kiroIdePlan(input.args, { env: input.env });
}

if (import.meta.main) await runShim(planFromArgs);
