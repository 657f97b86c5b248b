/**
 * Test helper: a scripted OpenAI Responses API on loopback, so the real Codex CLI runs offline
 * (a custom model provider with `wire_api = "responses"` and this server's `base_url`).
 * `POST /v1/responses` answers from a per-test script as Server-Sent Events: `response.created`,
 * one `response.output_item.done` per output item (an assistant message or a function call, a
 * namespaced one for an MCP tool), then `response.completed`. Every request is recorded, so a
 * test can read what the client sent the model (its `input` carries what hooks injected).
 *
 * @module
 */
import { type ModelRequest, startScriptedServer } from "./_scripted_server.ts";

/** One output item the scripted model answers with. */
export type ResponsesItem =
  | { type: "text"; text: string }
  | { type: "call"; name: string; namespace?: string; arguments: Record<string, unknown> };

/** Picks the reply to a `POST /v1/responses` body. */
export type ResponsesScript = (body: Record<string, unknown>) => ResponsesItem[];

/** A running scripted Responses model. */
export interface ScriptedResponsesModel {
  /** Base URL for the provider's `base_url` (ends in `/v1`). */
  url: string;
  /** Every request received so far, in order. */
  requests: ModelRequest[];
  /** Replaces the script for the requests to come. */
  setScript(script: ResponsesScript): void;
  /** Closes the server. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The input items of a request. */
function inputOf(body: Record<string, unknown> | null): Record<string, unknown>[] {
  return Array.isArray(body?.input) ? body.input as Record<string, unknown>[] : [];
}

/** The whole text a request gives the model (its instructions and input), to search for context. */
export function responsesRequestText(body: Record<string, unknown> | null): string {
  if (body === null) return "";
  return JSON.stringify({ instructions: body.instructions ?? null, input: inputOf(body) });
}

/**
 * A turn of calls, one after another: the agent's loop asks for `calls[k]` once `k` of the turn's
 * call outputs are back, and ends with `text`; a request offering no tools gets `text`.
 */
export function callsThenText(calls: readonly ResponsesItem[], text: string): ResponsesScript {
  return (body) => {
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    const done = tools ? turnOutputs(body) : calls.length;
    return done < calls.length ? [calls[done]] : [{ type: "text", text }];
  };
}

/** How many call outputs the turn under way has (since its last user message). */
function turnOutputs(body: Record<string, unknown>): number {
  let outputs = 0;
  for (const item of [...inputOf(body)].reverse()) {
    if (item.type === "message" && item.role === "user") break;
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output") outputs++;
  }
  return outputs;
}

let counter = 0;

function outputItem(item: ResponsesItem): Record<string, unknown> {
  const id = `${Date.now().toString(36)}${(counter++).toString(36).padStart(6, "0")}`;
  if (item.type === "text") {
    return {
      type: "message",
      role: "assistant",
      id: `msg_${id}`,
      content: [{ type: "output_text", text: item.text }],
    };
  }
  return {
    type: "function_call",
    call_id: `call_${id}`,
    ...(item.namespace ? { namespace: item.namespace } : {}),
    name: item.name,
    arguments: JSON.stringify(item.arguments),
  };
}

/** The SSE stream of one response. */
export function responseEvents(items: ResponsesItem[]): string {
  const id = `resp_${Date.now().toString(36)}${(counter++).toString(36)}`;
  const usage = {
    input_tokens: 1,
    input_tokens_details: null,
    output_tokens: 1,
    output_tokens_details: null,
    total_tokens: 2,
  };
  const events = [
    { type: "response.created", response: { id } },
    ...items.map((item) => ({ type: "response.output_item.done", item: outputItem(item) })),
    { type: "response.completed", response: { id, usage } },
  ];
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

function answer(request: ModelRequest & { pathname: string }, script: ResponsesScript): Response {
  const { method, pathname, body } = request;
  if (method === "POST" && pathname.endsWith("/responses") && body !== null) {
    return new Response(responseEvents(script(body)), {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  }
  return Response.json({ error: { message: `no ${pathname} here` } }, { status: 404 });
}

/** Starts the scripted Responses model on `127.0.0.1` and a free port. */
export function startScriptedResponsesModel(script: ResponsesScript): ScriptedResponsesModel {
  const { origin, ...server } = startScriptedServer(script, answer);
  return { url: `${origin}/v1`, ...server };
}
