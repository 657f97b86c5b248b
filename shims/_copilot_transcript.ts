/**
 * A Copilot CLI turn's tool uses, read from the session's transcript (`events.jsonl`, the
 * `transcriptPath` of `agentStop`) at the turn's end instead of one `postToolUse` hook process per
 * tool call. Copilot CLI 1.0.102 writes each call as `tool.execution_start` (`toolCallId`,
 * `toolName`, `arguments`) and `tool.execution_complete` (`success`, `result.content`,
 * `shellExecution.exitCode`, or `error.message` when it failed) before the result goes back to the
 * model. A failed call (`success: false`) or a shell command's non-zero exit code is flagged.
 *
 * @module
 */
import { copilotToolError, type HookPlan, isOwnTool } from "@kiro-learn/core/hooks";
import { fileTurnToolUses } from "./_turn_tools.ts";
import type { TranscriptPayload } from "./claude_import.ts";
import type { PrecedingEvents } from "./run.ts";
import type { ShimConfig } from "./transport.ts";

type Json = Record<string, unknown>;

function record(value: unknown): Json | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as Json
    : null;
}

/** The Claude-shaped payload of one finished call, or null for one of kiro-learn's own tools. */
function callPayload(
  start: Json,
  done: Json,
  context: { sessionId: string; cwd: string },
): Json | null {
  const name = typeof start.toolName === "string" && start.toolName.trim() !== ""
    ? start.toolName
    : "unknown";
  if (isOwnTool(name)) return null;
  const text = String(record(done.result)?.content ?? "");
  const exit = record(done.shellExecution)?.exitCode;
  const error = done.success === false
    ? String(record(done.error)?.message ?? "").trim() || "tool failed"
    : copilotToolError({ resultType: "success", textResultForLlm: text }) ??
      (typeof exit === "number" && exit !== 0 ? `exit code ${exit}` : undefined);
  return {
    session_id: context.sessionId,
    cwd: context.cwd,
    hook_event_name: error === undefined ? "PostToolUse" : "PostToolUseFailure",
    tool_name: name,
    tool_input: start.arguments ?? {},
    tool_response: { resultType: done.success === false ? "failure" : "success", text },
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * The tool payloads of the transcript's last turn (the calls after its last prompt, each once it
 * has finished), in order. A line that is not JSON (a partial last line) is skipped.
 */
export function copilotTurnPayloads(
  lines: readonly string[],
  context: { sessionId: string; cwd: string },
): TranscriptPayload[] {
  const events: Json[] = [];
  for (const line of lines) {
    if (!line.includes('"tool.execution_') && !line.includes('"user.message"')) continue;
    try {
      const event = record(JSON.parse(line));
      if (event !== null) events.push(event);
    } catch {
      continue;
    }
  }
  const turn = events.slice(events.findLastIndex((e) => e.type === "user.message") + 1);
  const starts = new Map<string, Json>();
  const payloads: TranscriptPayload[] = [];
  for (const event of turn) {
    const data = record(event.data);
    const id = data?.toolCallId;
    if (data === null || typeof id !== "string" || id === "") continue;
    if (event.type === "tool.execution_start") starts.set(id, data);
    if (event.type !== "tool.execution_complete" || !starts.has(id)) continue;
    const payload = callPayload(starts.get(id)!, data, context);
    if (payload === null) continue;
    const time = Date.parse(String(event.timestamp ?? "")) || Date.now();
    payloads.push({ payload, key: `tool:${id}`, time });
  }
  return payloads;
}

/**
 * The tool uses of the turn that `plan` (a Copilot CLI `agentStop` naming its transcript) ends;
 * null when there is none or the file cannot be read (said on stderr; the turn's end is still
 * stored).
 */
export function copilotTurnToolUses(
  plan: HookPlan,
  config: Pick<ShimConfig, "maxBodyBytes">,
): Promise<PrecedingEvents | null> {
  return fileTurnToolUses(plan, config, {
    label: "copilot hook",
    file: "transcript",
    surface: "copilot-cli",
    payloads: (lines) => copilotTurnPayloads(lines, { sessionId: plan.sessionId, cwd: plan.cwd }),
  });
}
