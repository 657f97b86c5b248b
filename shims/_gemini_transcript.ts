/**
 * A Gemini CLI turn's tool uses, read at the turn's end (`AfterAgent`) from the session's chat
 * file (`transcript_path`, `~/.gemini/tmp/<project>/chats/session-….jsonl`). Gemini CLI 0.61
 * appends every change of the conversation to that file as one JSON line (ChatRecordingService):
 * a message record (`{id, type, …}`, written again whole under the same id each time it grows),
 * a rewind (`{$rewindTo: <id>}`) or a rewrite (`{$set: {messages: […]}}`). A turn's tool calls
 * are recorded (`toolCalls` of a `gemini` message: `{id, name, args, result, status}`) before
 * their results go back to the model, so all of them are in the file when the turn ends. One hook
 * firing per turn instead of one per tool call; event ids derive from the session and the tool
 * call's id, so reading the same turn twice stores nothing twice.
 *
 * The turn is what follows the last prompt in the file's tail (a `user` message with text: tool
 * results go back to the model as `user` messages too). Failures: a call whose
 * `status` is `error`, or a shell command whose output says a non-zero `Exit Code` (core's
 * `geminiToolError`, as for the `AfterTool` hook).
 *
 * @module
 */
import { geminiToolError, type HookPlan, isOwnTool } from "@kiro-learn/core/hooks";
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

/** The messages a chat file's lines leave, in order, each in its last version. */
export function chatMessages(lines: readonly string[]): Json[] {
  const messages = new Map<string, Json>();
  for (const line of lines) {
    let parsed: Json | null;
    try {
      parsed = record(JSON.parse(line));
    } catch {
      continue;
    }
    if (parsed === null) continue;
    if (typeof parsed.$rewindTo === "string") {
      // Everything from that message on is gone (Gemini CLI's own reading of the file).
      let found = false;
      for (const id of [...messages.keys()]) {
        if (id === parsed.$rewindTo) found = true;
        if (found) messages.delete(id);
      }
      if (!found) messages.clear();
    } else if (Array.isArray(record(parsed.$set)?.messages)) {
      messages.clear();
      for (const message of record(parsed.$set)!.messages as unknown[]) {
        const m = record(message);
        if (typeof m?.id === "string") messages.set(m.id, m);
      }
    } else if (typeof parsed.id === "string" && typeof parsed.type === "string") {
      messages.set(parsed.id, parsed);
    }
  }
  return [...messages.values()];
}

/** The text the model got back from a tool call (its function responses' output or error). */
function resultText(result: unknown): string {
  if (!Array.isArray(result)) return typeof result === "string" ? result : "";
  return result.map((part) => {
    const response = record(record(record(part)?.functionResponse)?.response);
    if (response === null) return typeof record(part)?.text === "string" ? record(part)!.text : "";
    const text = response.output ?? response.error ?? response.content;
    return typeof text === "string" ? text : JSON.stringify(text ?? "");
  }).join("\n");
}

/**
 * The Claude-shaped tool payload (`PostToolUse`, or `PostToolUseFailure` with an `error`) of one
 * recorded tool call, or null for one of kiro-learn's own tools or a call without an id.
 */
export function chatToolPayload(
  call: Json,
  context: { sessionId: string; cwd: string },
): Record<string, unknown> | null {
  const name = typeof call.name === "string" && call.name.trim() !== "" ? call.name : "unknown";
  if (isOwnTool(name)) return null;
  const llmContent = resultText(call.result);
  const response = { llmContent, returnDisplay: call.resultDisplay ?? null };
  const error = call.status === "error"
    ? (llmContent.trim() || "tool failed")
    : geminiToolError({ llmContent });
  return {
    session_id: context.sessionId,
    cwd: context.cwd,
    hook_event_name: error === undefined ? "PostToolUse" : "PostToolUseFailure",
    tool_name: name,
    tool_input: call.args ?? {},
    tool_response: response,
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * Whether a message is a prompt: a `user` message with text (the results of tool calls go back
 * to the model as `user` messages too, made of `functionResponse` parts only).
 */
function isPrompt(message: Json): boolean {
  if (message.type !== "user") return false;
  const content = message.content;
  if (!Array.isArray(content)) return true;
  return content.some((part) => record(part)?.functionResponse === undefined);
}

/** The tool payloads of the chat's last turn (after its last prompt), in order. */
export function lastTurnPayloads(
  lines: readonly string[],
  context: { sessionId: string; cwd: string },
): TranscriptPayload[] {
  const messages = chatMessages(lines);
  const start = messages.findLastIndex(isPrompt) + 1;
  const payloads: TranscriptPayload[] = [];
  for (const message of messages.slice(start)) {
    if (message.type !== "gemini" || !Array.isArray(message.toolCalls)) continue;
    for (const value of message.toolCalls) {
      const call = record(value);
      if (call === null || typeof call.id !== "string" || call.id === "") continue;
      const payload = chatToolPayload(call, context);
      if (payload === null) continue;
      const time = Date.parse(String(call.timestamp ?? message.timestamp ?? "")) || Date.now();
      payloads.push({ payload, key: `tool:${call.id}`, time });
    }
  }
  return payloads;
}

/**
 * The tool uses of the turn that `plan` (a Gemini CLI `AfterAgent` naming its chat file) ends;
 * null when there is none or the file cannot be read (said on stderr; the turn's end is still
 * stored).
 */
export function geminiTurnToolUses(
  plan: HookPlan,
  config: Pick<ShimConfig, "maxBodyBytes">,
): Promise<PrecedingEvents | null> {
  return fileTurnToolUses(plan, config, {
    label: "gemini hook",
    file: "chat file",
    surface: "gemini-cli",
    payloads: (lines) => lastTurnPayloads(lines, { sessionId: plan.sessionId, cwd: plan.cwd }),
  });
}
