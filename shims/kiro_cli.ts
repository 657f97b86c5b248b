/**
 * Kiro CLI hook shim, reading the hook payload (JSON) from stdin. It speaks:
 *
 * - Kiro CLI embedded agent hooks: `agentSpawn`, `userPromptSubmit`, `postToolUse` (also the
 *   deferred form carrying `hook_events: [...]`), `stop`;
 * - the v1 hook files shared by Kiro CLI 3.x and Kiro IDE 1.x (`.kiro/hooks/*.json`):
 *   `SessionStart`, `UserPromptSubmit`, `PostToolUse`, `Stop`.
 *
 * Surface rule (both products read the same `.kiro/hooks/kiro-learn.json`, so the hook command
 * cannot say which one runs it): `KIRO_SESSION_ID` in the hook's environment is Kiro CLI (2.x
 * and 3.x export it to every hook; Kiro IDE sets no such variable) → `kiro-cli`; otherwise a v1
 * (PascalCase) hook name together with a payload `session_id` is the IDE 1.x → `kiro-ide`; a
 * payload `session_id` alone proves nothing, since Kiro CLI 3.x sends one too (`sess_…`, the
 * same value as `KIRO_SESSION_ID`); everything else → `kiro-cli`.
 * `--surface=kiro-ide|kiro-cli` on the command line overrides the rule.
 *
 * @module
 */
import type { Surface } from "@kiro-learn/core/schemas";
import type { ShimEnv } from "./env.ts";
import {
  type HookPlan,
  parsePayload,
  type PlanInput,
  type PlannedEvent,
  processCwd,
  runShim,
  str,
} from "./run.ts";
import { agentPidFromArgs, kiroSessionId, validSessionId } from "./session.ts";
import { note } from "./_stderr.ts";
import { readStdin } from "./stdin.ts";
import { isOwnTool, toolUseBody } from "@kiro-learn/core/hooks";
import { clientId } from "./transport.ts";

/** v1 (PascalCase) names → the embedded names they replaced. */
const V1_NAMES: Readonly<Record<string, string>> = {
  SessionStart: "agentSpawn",
  UserPromptSubmit: "userPromptSubmit",
  PostToolUse: "postToolUse",
  Stop: "stop",
  PreToolUse: "preToolUse",
};

/** Hooks that exist but that memory does not need. */
const IGNORED = new Set([
  "preToolUse",
  "PreTaskExec",
  "PostTaskExec",
  "PostFileCreate",
  "PostFileSave",
  "PostFileDelete",
  "Manual",
]);

/** Context a Kiro plan needs besides the payload. */
export interface KiroPlanOptions {
  /** Permitted environment. */
  env: ShimEnv;
  /** Command-line arguments (`--surface=...`, `--agent-pid=...`). */
  args?: string[];
  /** Session id to use when the payload has none (defaults to {@linkcode kiroSessionId}). */
  fallbackSessionId?: () => string;
  /** Working directory when the payload has none. */
  fallbackCwd?: () => string;
}

/** Turns one Kiro stdin payload into a plan, or null when there is nothing to record. */
export function kiroCliPlan(
  payload: Record<string, unknown>,
  options: KiroPlanOptions,
): HookPlan | null {
  const rawName = str(payload.hook_event_name);
  if (rawName === undefined || rawName === "") {
    note("kiro hook: payload has no hook_event_name; nothing recorded");
    return null;
  }
  const isV1 = rawName in V1_NAMES;
  const name = V1_NAMES[rawName] ?? rawName;
  const surface = surfaceOf(options.args ?? [], isV1, payload, options.env);
  const sessionId = validSessionId(payload.session_id) ??
    (options.fallbackSessionId ??
      (() =>
        kiroSessionId({
          env: options.env,
          hostname: clientId(),
          agentPid: agentPidFromArgs(options.args ?? []),
        })))();
  const cwd = nonEmpty(str(payload.cwd)) ?? (options.fallbackCwd ?? processCwd)();
  const plan = (events: PlannedEvent[], timeout: HookPlan["timeout"]): HookPlan | null =>
    events.length === 0 ? null : { surface, hook: rawName, sessionId, cwd, events, timeout };

  switch (name) {
    case "agentSpawn": {
      // Kiro runs agentSpawn when the first prompt is sent, and hands it that prompt: record
      // the session start (with the resume block) and the prompt (with its retrieval).
      const events: PlannedEvent[] = [{
        kind: "note",
        body: { type: "text", content: "session started" },
        query: "resume",
        print: true,
      }];
      const prompt = nonEmpty(str(payload.prompt)) ?? nonEmpty(options.env.USER_PROMPT);
      if (prompt !== undefined) events.push(promptEvent(prompt));
      return plan(events, "retrieve");
    }
    case "userPromptSubmit": {
      const prompt = nonEmpty(str(payload.prompt));
      if (prompt === undefined) return null;
      return plan([promptEvent(prompt)], "retrieve");
    }
    case "postToolUse": {
      const calls = Array.isArray(payload.hook_events) ? payload.hook_events : [payload];
      const events: PlannedEvent[] = [];
      for (const call of calls) {
        if (call === null || typeof call !== "object") continue;
        const record = call as Record<string, unknown>;
        const toolName = nonEmpty(str(record.tool_name)) ?? "unknown";
        if (isOwnTool(toolName)) continue;
        events.push({
          kind: "tool_use",
          body: toolUseBody({
            tool_name: toolName,
            tool_input: record.tool_input,
            tool_response: record.tool_response,
          }),
          query: "",
          print: false,
          cwd: nonEmpty(str(record.cwd)),
        });
      }
      return plan(events, "store");
    }
    case "stop": {
      const text = str(payload.assistant_response) ?? str(payload.last_assistant_message) ?? "";
      return plan([{
        kind: "session_summary",
        body: { type: "text", content: text },
        query: "",
        print: false,
      }], "store");
    }
    default:
      if (!IGNORED.has(name)) {
        note(`kiro hook: unknown hook "${rawName.slice(0, 60)}"; nothing recorded`);
      }
      return null;
  }
}

function promptEvent(prompt: string): PlannedEvent {
  return {
    kind: "prompt",
    body: { type: "text", content: prompt },
    query: "retrieve",
    print: true,
  };
}

function surfaceOf(
  args: string[],
  isV1: boolean,
  payload: Record<string, unknown>,
  env: ShimEnv,
): Surface {
  for (const arg of args) {
    if (arg === "--surface=kiro-ide") return "kiro-ide";
    if (arg === "--surface=kiro-cli") return "kiro-cli";
  }
  // Kiro CLI exports its session id to hooks; the IDE does not.
  if (validSessionId(env.KIRO_SESSION_ID) !== null) return "kiro-cli";
  return isV1 && validSessionId(payload.session_id) !== null ? "kiro-ide" : "kiro-cli";
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** Reads stdin (bounded) and plans. */
export async function planFromStdin(input: PlanInput): Promise<HookPlan | null> {
  const stdin = await readStdin();
  if (stdin.overflow) {
    note("kiro hook: payload too large to read; nothing recorded");
    return null;
  }
  const payload = parsePayload(stdin.text, "kiro hook");
  if (payload === null) return null;
  return kiroCliPlan(payload, { env: input.env, args: input.args });
}

if (import.meta.main) await runShim(planFromStdin);
