/**
 * Past Claude Code sessions, from their transcripts (`~/.claude/projects/<path>/<session>.jsonl`),
 * become the events the hooks would have captured: each prompt, each tool use with its result
 * (a failed one as a failure), and each turn's last answer, in the session's own project and
 * session id, at the time they happened. They are turned into hook payloads and planned by the
 * Claude Code shim's own planner, so an imported event is exactly what a hook would have sent,
 * and posted through the collector's normal ingest (scrubbed, queued, extracted).
 *
 * Idempotent: an event's id derives from the session, the transcript line and its time, and the
 * collector stores an id once; importing a session again adds nothing. A session the hooks
 * recorded is not recorded twice: the collector drops a backfilled event when the session holds
 * the same event (kind and body) from a hook, close in time. Line types this does not
 * know (Claude Code adds new ones) are counted and skipped, never fatal.
 *
 * `kiro-learn import claude-code` runs this entry with the shims' permissions plus read of the
 * transcripts folder: `deno run … shims/claude_import.ts <transcript.jsonl>…`.
 *
 * @module
 */
import type { Event, Surface } from "@kiro-learn/core/schemas";
import { derivedUlid } from "@kiro-learn/core/ids";
import { claudeCodePlan } from "@kiro-learn/core/hooks";
import { readShimEnv } from "./env.ts";
import { note } from "./_stderr.ts";
import { buildEvent, clientId, loadShimConfig, postEvent, type ShimConfig } from "./transport.ts";

/** A hook payload rebuilt from a transcript, with what identifies it. */
export interface TranscriptPayload {
  /** The Claude Code hook payload (`hook_event_name`, `session_id`, `cwd`, …). */
  payload: Record<string, unknown>;
  /** The transcript line's `uuid` (with a suffix when one line gives several payloads). */
  key: string;
  /** When it happened (ms since the epoch). */
  time: number;
}

/** What a transcript held. */
export interface TranscriptPayloads {
  /** Payloads in order. */
  payloads: TranscriptPayload[];
  /** Lines skipped, by `type` (`"(not JSON)"` for a line that does not parse). */
  skipped: Record<string, number>;
  /**
   * Indices into the lines of the tool calls whose result is not among them yet (a call the
   * user's next prompt left without a result was abandoned, and is not listed).
   */
  pendingCalls?: number[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  v !== null && typeof v === "object" && !Array.isArray(v);
const text = (v: unknown): string | undefined => typeof v === "string" ? v : undefined;

// Transcript line types that carry nothing a hook would have seen (bookkeeping of the client).
const BOOKKEEPING = new Set([
  "summary",
  "queue-operation",
  "attachment",
  "atis-latch",
  "api-request",
  "api-request-shape",
  "api-request-blob",
  "tools-used",
  "last-prompt",
  "cost-state",
  "file-history-snapshot",
  "system",
]);

/** The text of a tool result's content (a string, or text blocks). */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((b) => isObject(b) ? text(b.text) ?? "" : "").filter(Boolean).join("\n");
  }
  return "";
}

/** Rebuilds the hook payloads of one session's transcript lines. */
export function transcriptPayloads(
  lines: readonly string[],
  options: {
    sessionId: string;
    /** Keep side conversations' lines (a subagent's own transcript is all side conversation). */
    sidechains?: boolean;
  },
): TranscriptPayloads {
  const payloads: TranscriptPayload[] = [];
  const skipped: Record<string, number> = {};
  const skip = (type: string) => skipped[type] = (skipped[type] ?? 0) + 1;
  const calls = new Map<string, { name: string; input: unknown }>();
  const pending = new Map<string, number>();
  let cwd: string | undefined;
  // The last answer of the turn under way: it becomes the turn's Stop when the next prompt
  // comes, or the transcript ends.
  let answer: { text: string; key: string; time: number } | null = null;
  const base = () => ({ session_id: options.sessionId, cwd: cwd ?? "" });
  const endTurn = () => {
    if (answer === null) return;
    payloads.push({
      payload: { ...base(), hook_event_name: "Stop", last_assistant_message: answer.text },
      key: `${answer.key}:stop`,
      time: answer.time,
    });
    answer = null;
  };
  for (const [index, raw] of lines.entries()) {
    if (raw.trim() === "") continue;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      skip("(not JSON)");
      continue;
    }
    if (!isObject(line)) {
      skip("(not an object)");
      continue;
    }
    const type = text(line.type) ?? "(no type)";
    if (text(line.cwd)) cwd = text(line.cwd);
    const key = text(line.uuid);
    const time = Date.parse(text(line.timestamp) ?? "");
    const message = isObject(line.message) ? line.message : null;
    if ((type !== "user" && type !== "assistant") || !key || !Number.isFinite(time) || !message) {
      skip(BOOKKEEPING.has(type) ? type : `${type} (unknown)`);
      continue;
    }
    // Side conversations (subagents) and the client's own injected turns are not the user's.
    const side = line.isSidechain === true && !options.sidechains;
    if (side || line.isMeta === true || line.isCompactSummary === true) {
      skip(`${type} (meta)`);
      continue;
    }
    const content = message.content;
    if (type === "assistant") {
      for (const block of Array.isArray(content) ? content : []) {
        if (!isObject(block)) continue;
        if (block.type === "tool_use" && text(block.id) && text(block.name)) {
          calls.set(text(block.id)!, { name: text(block.name)!, input: block.input });
          pending.set(text(block.id)!, index);
        } else if (block.type === "text" && text(block.text)?.trim()) {
          answer = { text: text(block.text)!, key, time };
        }
      }
      continue;
    }
    if (typeof content === "string") {
      endTurn();
      pending.clear();
      payloads.push({
        payload: { ...base(), hook_event_name: "UserPromptSubmit", prompt: content },
        key,
        time,
      });
      continue;
    }
    const blocks = Array.isArray(content) ? content.filter(isObject) : [];
    const results = blocks.filter((b) => b.type === "tool_result");
    if (results.length === 0) {
      const prompt = blocks.map((b) => b.type === "text" ? text(b.text) ?? "" : "").join("\n");
      if (prompt.trim() === "") {
        skip("user (empty)");
        continue;
      }
      endTurn();
      pending.clear();
      payloads.push({
        payload: { ...base(), hook_event_name: "UserPromptSubmit", prompt },
        key,
        time,
      });
      continue;
    }
    for (const result of results) pending.delete(text(result.tool_use_id) ?? "");
    results.forEach((result, i) => {
      const call = calls.get(text(result.tool_use_id) ?? "");
      if (!call) {
        skip("tool_result (no matching tool_use)");
        return;
      }
      const shared = { ...base(), tool_name: call.name, tool_input: call.input };
      const response = results.length === 1 && line.toolUseResult !== undefined
        ? (line as Json).toolUseResult
        : resultText(result.content);
      payloads.push({
        payload: result.is_error === true
          ? { ...shared, hook_event_name: "PostToolUseFailure", error: resultText(result.content) }
          : { ...shared, hook_event_name: "PostToolUse", tool_response: response },
        key: `${key}:${i}`,
        time,
      });
    });
  }
  endTurn();
  return { payloads, skipped, pendingCalls: [...pending.values()] };
}

/**
 * The events a hook would have sent for these payloads, with ids derived from them. `surface`
 * (default `claude-code`) is the agent they are filed under: Codex's rollout gives the same
 * payload shapes.
 */
export async function transcriptEvents(
  found: TranscriptPayloads,
  options: { sessionId: string; maxBodyBytes: number; surface?: Surface },
): Promise<Event[]> {
  const surface = options.surface ?? "claude-code";
  const env = readShimEnv();
  const client = clientId();
  const events: Event[] = [];
  for (const { payload, key, time } of found.payloads) {
    // The core plan itself: the hook shim's entry (claude_code.ts) loads this module at a turn's
    // end, so importing that entry back would be a cycle.
    const plan = claudeCodePlan(payload, {
      fallbackSessionId: () => options.sessionId,
      fallbackCwd: () => String(payload.cwd),
      warn: note,
    });
    if (plan === null) continue;
    for (const [i, planned] of plan.events.entries()) {
      const event = buildEvent({ kind: planned.kind, body: planned.body }, {
        surface,
        sessionId: plan.sessionId,
        cwd: plan.cwd,
        maxBodyBytes: options.maxBodyBytes,
        env,
        now: new Date(time),
        clientId: client,
      });
      const seed = new Uint8Array(
        await crypto.subtle.digest(
          "SHA-256",
          new TextEncoder().encode(`${surface}\n${options.sessionId}\n${key}\n${i}`),
        ),
      );
      events.push({ ...event, event_id: derivedUlid(time, seed) });
    }
  }
  return events;
}

/** What importing one transcript did. */
export interface TranscriptImport {
  /** The transcript file. */
  file: string;
  /** Its session id. */
  session: string;
  /** Events the collector took (new or already there: the same id is stored once). */
  posted: number;
  /** Of those, the ones it stored now (the others it had: imported before, or hooked). */
  added: number;
  /** Events the collector refused or could not take, with the first reason. */
  failed: number;
  /** The first failure's message. */
  error?: string;
  /** Lines skipped, by type. */
  skipped: Record<string, number>;
}

/** Imports one transcript file through the collector. Never throws for a bad line. */
export async function importTranscript(
  file: string,
  config: ShimConfig,
): Promise<TranscriptImport> {
  const session = file.split("/").at(-1)!.replace(/\.jsonl$/, "");
  const lines = (await Deno.readTextFile(file)).split("\n");
  const found = transcriptPayloads(lines, { sessionId: session });
  const events = await transcriptEvents(found, {
    sessionId: session,
    maxBodyBytes: config.maxBodyBytes,
  });
  const report: TranscriptImport = {
    file,
    session,
    posted: 0,
    added: 0,
    failed: 0,
    skipped: found.skipped,
  };
  for (const event of events) {
    // No retrieval: nobody is waiting for context, and the audit log stays the live sessions'.
    // A backfill: what the hooks recorded of this session already is not stored again.
    const result = await postEvent(event, config, { query: "backfill", timeoutMs: 10_000 });
    if (result.status === "ok") {
      report.posted++;
      if (result.stored) report.added++;
    } else {
      report.failed++;
      report.error ??= result.message;
      if (result.status === "unavailable") {
        report.failed += events.length - report.posted - report.failed;
        break;
      }
    }
  }
  return report;
}

if (import.meta.main) {
  const config = loadShimConfig();
  if (config === null) Deno.exit(1);
  for (const file of Deno.args) {
    console.log(JSON.stringify(await importTranscript(file, config)));
  }
}
