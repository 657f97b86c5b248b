/**
 * Test helper: a scripted Anthropic Messages API on loopback, so a real Claude Code client runs
 * offline. `POST /v1/messages` answers from a per-test script, streamed as Server-Sent Events
 * (`message_start`, `content_block_start`/`_delta`/`_stop`, `message_delta`, `message_stop`) or
 * as one JSON message when the request does not stream; `count_tokens` and any probe get a
 * sensible answer. Every request is recorded, so a test can read what the client sent the model
 * (the system prompt and messages carry what hooks injected).
 *
 * @module
 */
import { type ModelRequest, startScriptedServer } from "./_scripted_server.ts";

/** One content block the scripted model answers with. */
export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown> };

export type { ModelRequest };

/** Picks the reply to a `POST /v1/messages` body. */
export type ModelScript = (body: Record<string, unknown>) => ScriptedBlock[];

/** A running scripted model. */
export interface ScriptedModel {
  /** Base URL for `ANTHROPIC_BASE_URL`. */
  url: string;
  /** Every request received so far, in order. */
  requests: ModelRequest[];
  /** Replaces the script for the requests to come. */
  setScript(script: ModelScript): void;
  /** Closes the server. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The whole text of a request (system prompt and every message), to search for injected context. */
export function requestText(body: Record<string, unknown> | null): string {
  if (body === null) return "";
  return JSON.stringify({ system: body.system ?? null, messages: body.messages ?? [] });
}

/** True when the last message of a request carries a tool result (the model's tool call ran). */
export function answersToolCall(body: Record<string, unknown>): boolean {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.at(-1) as { role?: string; content?: unknown } | undefined;
  return last?.role === "user" && Array.isArray(last.content) &&
    last.content.some((c) => (c as { type?: string })?.type === "tool_result");
}

/** True when a request offers the model tools (the agent's own loop, not a side request). */
export function offersTools(body: Record<string, unknown>): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

/**
 * A one-tool session: the agent's loop asks for `tool` first and ends with `text` once the tool
 * result comes back; side requests without tools (titles, summaries) get `text` too.
 */
export function toolThenText(
  tool: { name: string; input: Record<string, unknown> },
  text: string,
): ModelScript {
  return toolsThenText([tool], text);
}

/**
 * A session of several tool calls, one after another: the agent's loop asks for `tools[k]` once
 * `k` of the turn's tool results are back, and ends with `text`; side requests get `text` too.
 */
export function toolsThenText(
  tools: readonly { name: string; input: Record<string, unknown> }[],
  text: string,
): ModelScript {
  return (body) => {
    const done = offersTools(body) ? turnToolResults(body) : tools.length;
    return done < tools.length
      ? [{ type: "text", text: "Next step." }, { type: "tool_use", ...tools[done] }]
      : [{ type: "text", text }];
  };
}

/** How many tool results the turn under way has (since the last prompt that was not one). */
function turnToolResults(body: Record<string, unknown>): number {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  let results = 0;
  for (const message of [...messages].reverse()) {
    const { role, content } = message as { role?: string; content?: unknown };
    if (role !== "user") continue;
    const blocks = Array.isArray(content) ? content as { type?: string }[] : [];
    const count = blocks.filter((b) => b?.type === "tool_result").length;
    if (count === 0) break;
    results += count;
  }
  return results;
}

let counter = 0;
function id(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${(counter++).toString(36).padStart(6, "0")}`;
}

function contentOf(blocks: ScriptedBlock[]): Record<string, unknown>[] {
  return blocks.map((b) =>
    b.type === "text"
      ? { type: "text", text: b.text }
      : { type: "tool_use", id: id("toolu"), name: b.name, input: b.input }
  );
}

function roughTokens(body: Record<string, unknown> | null): number {
  return Math.max(1, Math.ceil(requestText(body).length / 4));
}

/** The SSE events of one streamed message, in the order the Messages API sends them. */
export function messageEvents(
  blocks: ScriptedBlock[],
  options: { model: string; inputTokens: number },
): { event: string; data: Record<string, unknown> }[] {
  const content = contentOf(blocks);
  const stopReason = content.some((c) => c.type === "tool_use") ? "tool_use" : "end_turn";
  const events: { event: string; data: Record<string, unknown> }[] = [{
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id: id("msg"),
        type: "message",
        role: "assistant",
        model: options.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: options.inputTokens, output_tokens: 1 },
      },
    },
  }];
  content.forEach((block, index) => {
    if (block.type === "text") {
      events.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      });
      events.push({
        event: "content_block_delta",
        data: {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: block.text },
        },
      });
    } else {
      events.push({
        event: "content_block_start",
        data: {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        },
      });
      // The input arrives as JSON text in pieces, as the real API sends it.
      const json = JSON.stringify(block.input);
      const cut = Math.floor(json.length / 2);
      for (const part of [json.slice(0, cut), json.slice(cut)]) {
        events.push({
          event: "content_block_delta",
          data: {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: part },
          },
        });
      }
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 10 },
    },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return events;
}

function answer(request: ModelRequest & { pathname: string }, script: ModelScript): Response {
  const { method, pathname, body } = request;
  if (method === "POST" && pathname === "/v1/messages/count_tokens") {
    return Response.json({ input_tokens: roughTokens(body) });
  }
  if (method === "POST" && pathname === "/v1/messages" && body !== null) {
    const blocks = script(body);
    const model = typeof body.model === "string" ? body.model : "claude-scripted";
    if (body.stream !== true) {
      const content = contentOf(blocks);
      return Response.json({
        id: id("msg"),
        type: "message",
        role: "assistant",
        model,
        content,
        stop_reason: content.some((c) => c.type === "tool_use") ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: { input_tokens: roughTokens(body), output_tokens: 10 },
      });
    }
    const sse = messageEvents(blocks, { model, inputTokens: roughTokens(body) })
      .map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`).join("");
    return new Response(sse, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  }
  if (method === "HEAD" || (method === "GET" && pathname === "/")) {
    return new Response(null, { status: 200 });
  }
  return Response.json(
    { type: "error", error: { type: "not_found_error", message: `no ${pathname} here` } },
    { status: 404 },
  );
}

/** Starts the scripted model on `127.0.0.1` and a free port. */
export function startScriptedModel(script: ModelScript): ScriptedModel {
  const { origin, ...server } = startScriptedServer(script, answer);
  return { url: origin, ...server };
}
