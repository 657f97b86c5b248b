/**
 * Tool-use bodies, shared by every surface: one JSON shape
 * `{tool_name, tool_input, tool_response, failed?, error?}`, with failures detected from each
 * agent's own signal (Kiro's string `exit_status` and `success:false`, Claude Code's failure
 * hook, the IDE's prose "Exit Code: N").
 *
 * @module
 */
import type { EventBody } from "@kiro-learn/core/schemas";
import { tellingErrorLine } from "@kiro-learn/core/error_line";

/** A tool call as a hook reports it. */
export interface ToolCall {
  /** The tool's name (`execute_bash`, `Bash`, `@server/tool`, `mcp__server__tool`...). */
  tool_name: string;
  /** Its input. */
  tool_input: unknown;
  /** Its response, in the agent's own shape. */
  tool_response: unknown;
  /** An explicit failure message (Claude Code's `PostToolUseFailure.error`). */
  error?: string;
  /** An explicit success flag (Kiro IDE 0.x `toolSuccess`). */
  success?: boolean;
}

/** Longest `error` line kept on a failed tool use. */
export const MAX_ERROR_LINE = 500;

const OWN_TOOL = /kiro[-_]learn[-_]memory/i;

/** The memory system's own MCP tools: capturing them would make memory observe itself. */
export function isOwnTool(toolName: string): boolean {
  return OWN_TOOL.test(toolName);
}

/** The tool-use event body. Failures get `failed: true` and their most telling line. */
export function toolUseBody(call: ToolCall): EventBody {
  const failure = detectFailure(call);
  const data: Record<string, unknown> = {
    tool_name: call.tool_name,
    tool_input: call.tool_input ?? {},
    tool_response: call.tool_response ?? {},
  };
  if (failure.failed) {
    data.failed = true;
    if (failure.error) data.error = failure.error;
  }
  return { type: "json", data };
}

/** Whether a tool call failed, and the line that says why. */
export function detectFailure(call: ToolCall): { failed: boolean; error?: string } {
  if (typeof call.error === "string" && call.error.trim() !== "") {
    return { failed: true, error: firstErrorLine(call.error) };
  }
  const fromResponse = responseFailure(call.tool_response);
  if (fromResponse !== null) return fromResponse;
  if (call.success === false) {
    return { failed: true, error: firstErrorLine(textOf(call.tool_response)) || undefined };
  }
  return { failed: false };
}

function responseFailure(response: unknown): { failed: true; error?: string } | null {
  if (typeof response === "string") return proseFailure(response);
  if (response === null || typeof response !== "object") return null;
  const record = response as Record<string, unknown>;
  // Kiro's execute_bash reports success:true even when the command failed, so the exit status
  // is checked first, wherever it sits (the response itself or an element of `result`).
  const results = Array.isArray(record.result) ? record.result : [record.result];
  for (const item of [record, ...results]) {
    const bash = bashFailure(item);
    if (bash !== null) return bash;
  }
  if (record.success === false || hasContent(record.error)) {
    const text = hasContent(record.error) ? textOf(record.error) : textOf(record.result);
    return { failed: true, error: firstErrorLine(text) || undefined };
  }
  if (typeof record.result === "string") return proseFailure(record.result);
  return null;
}

function bashFailure(value: unknown): { failed: true; error?: string } | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const status = record.exit_status ?? record.exitStatus ?? record.exit_code;
  if (status === undefined || status === null) return null;
  const code = String(status).trim();
  if (code === "0" || code === "") return null;
  const line = firstErrorLine(`${textOf(record.stderr)}\n${textOf(record.stdout)}`);
  return { failed: true, error: line || `exit status ${code}` };
}

/** Kiro IDE prose such as "Output: … Exit Code: 1". */
function proseFailure(text: string): { failed: true; error?: string } | null {
  const match = /exit code:?\s*(-?\d+)/i.exec(text);
  if (match === null || match[1] === "0") return null;
  const before = text.slice(0, match.index);
  return { failed: true, error: firstErrorLine(before) || `exit code ${match[1]}` };
}

/**
 * The line of an error text that says most (the assertion of a failed test run rather than the
 * runner's summary; see {@linkcode tellingErrorLine}), cut to {@linkcode MAX_ERROR_LINE}.
 */
export function firstErrorLine(text: string): string {
  const line = tellingErrorLine(text);
  return line.length > MAX_ERROR_LINE ? line.slice(0, MAX_ERROR_LINE) : line;
}

function hasContent(value: unknown): boolean {
  if (typeof value === "string") return value.trim() !== "";
  if (Array.isArray(value)) return value.length > 0;
  return value !== null && value !== undefined && typeof value === "object";
}

function textOf(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(textOf).join("\n");
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of ["stderr", "message", "error", "text", "stdout", "content", "result"]) {
      if (typeof record[key] === "string" && record[key] !== "") return record[key] as string;
    }
  }
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
