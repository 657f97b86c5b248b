/**
 * A Codex CLI turn's tool uses, read at the turn's end from the session's rollout file
 * (`transcript_path`, `~/.codex/sessions/…/rollout-….jsonl`). Codex's `PostToolUse` hook reports
 * a failed shell command with an empty response and no exit code; the rollout's `item_completed`
 * records carry the exit code and status. The turn's end names its `turn_id`, and each record
 * names the turn it belongs to, so no read mark is needed: the turn's records are picked out of
 * the file's tail. Event ids derive from the session and the item's id (the tool call's id), so
 * reading the same turn twice stores nothing twice.
 *
 * Only the record shapes seen in Codex CLI 0.171.0 are read (`CommandExecution`, with
 * `McpToolCall` and `FileChange` taken as far as their fields are found); any other item is
 * skipped.
 *
 * @module
 */
import type { HookPlan } from "@kiro-learn/core/hooks";
import { fileTurnToolUses } from "./_turn_tools.ts";
import type { TranscriptPayload } from "./claude_import.ts";
import type { PrecedingEvents } from "./run.ts";
import type { ShimConfig } from "./transport.ts";

type Item = Record<string, unknown>;

function record(value: unknown): Item | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as Item
    : null;
}

/** The shell command a `CommandExecution` ran: the script of `bash -lc <script>`, else the argv. */
function commandText(command: unknown): string {
  if (typeof command === "string") return command;
  if (!Array.isArray(command)) return "";
  const words = command.map(String);
  const flag = words.findIndex((w) => /^-[a-z]*c$/.test(w));
  return flag >= 1 && flag === words.length - 2 ? words[flag + 1] : words.join(" ");
}

/**
 * The Claude-shaped tool payload (`PostToolUse`, or `PostToolUseFailure` with an `error`) of one
 * completed rollout item, or null for an item that is not a tool call.
 */
export function rolloutToolPayload(
  item: Item,
  context: { sessionId: string; cwd: string },
): Record<string, unknown> | null {
  const base = { session_id: context.sessionId, cwd: context.cwd };
  const failedStatus = item.status === "failed" || item.status === "declined";
  switch (item.type) {
    case "CommandExecution": {
      const output = typeof item.aggregated_output === "string" ? item.aggregated_output : "";
      const exit = typeof item.exit_code === "number" ? item.exit_code : null;
      const failed = failedStatus || (exit !== null && exit !== 0);
      const response = { exit_code: exit, output };
      return {
        ...base,
        hook_event_name: failed ? "PostToolUseFailure" : "PostToolUse",
        tool_name: "Bash",
        tool_input: { command: commandText(item.command) },
        tool_response: response,
        ...(failed
          ? { error: output.trim() !== "" ? output : `exit code ${exit ?? "unknown"}` }
          : {}),
      };
    }
    case "McpToolCall": {
      const error = record(item.error);
      const failed = failedStatus || error !== null;
      const message = typeof error?.message === "string" ? error.message : "MCP tool call failed";
      return {
        ...base,
        hook_event_name: failed ? "PostToolUseFailure" : "PostToolUse",
        tool_name: `mcp__${String(item.server ?? "unknown")}__${String(item.tool ?? "unknown")}`,
        tool_input: item.arguments ?? {},
        tool_response: item.result ?? {},
        ...(failed ? { error: message } : {}),
      };
    }
    case "FileChange":
      return {
        ...base,
        hook_event_name: failedStatus ? "PostToolUseFailure" : "PostToolUse",
        tool_name: "apply_patch",
        tool_input: { changes: item.changes ?? [] },
        tool_response: { status: item.status ?? null },
        ...(failedStatus ? { error: `patch ${String(item.status)}` } : {}),
      };
    default:
      return null;
  }
}

/** The tool payloads of turn `turn` among rollout lines, in the order they completed. */
export function turnPayloads(
  lines: readonly string[],
  context: { sessionId: string; cwd: string; turn: string },
): TranscriptPayload[] {
  const payloads: TranscriptPayload[] = [];
  for (const line of lines) {
    // Cheap filter first: a turn's records are few among a long session's lines.
    if (!line.includes('"item_completed"') || !line.includes(context.turn)) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const payload = record(record(parsed)?.payload);
    if (payload?.type !== "item_completed" || payload.turn_id !== context.turn) continue;
    const item = record(payload.item);
    if (item === null || typeof item.id !== "string" || item.id === "") continue;
    const tool = rolloutToolPayload(item, context);
    if (tool === null) continue;
    const time = typeof payload.completed_at_ms === "number"
      ? payload.completed_at_ms
      : Date.parse(String(record(parsed)?.timestamp ?? "")) || Date.now();
    payloads.push({ payload: tool, key: `item:${item.id}`, time });
  }
  return payloads;
}

/**
 * The tool uses of the turn that `plan` (a Codex `Stop` naming its turn) ends, from the rollout
 * it names; null when there is none or it cannot be read (said on stderr; the turn's end is
 * still stored).
 */
export function codexTurnToolUses(
  plan: HookPlan,
  config: Pick<ShimConfig, "maxBodyBytes">,
): Promise<PrecedingEvents | null> {
  const turn = plan.turn;
  if (turn === undefined) return Promise.resolve(null);
  return fileTurnToolUses(plan, config, {
    label: "codex hook",
    file: "rollout",
    surface: "codex",
    payloads: (lines) => turnPayloads(lines, { sessionId: plan.sessionId, cwd: plan.cwd, turn }),
  });
}
