/**
 * Test helper: a scripted Anthropic Messages API on loopback, so a real agent (Claude Code, or
 * `claude-code-acp` which runs it behind ACP) works offline with `ANTHROPIC_BASE_URL` pointing
 * here. It records every request body, so a test can read exactly what reached "the model".
 *
 * Requests whose last user turn holds `match` (by default `<extraction_request>`) play the
 * script, one step per request (the last step repeats); every other request (Claude Code's own
 * side calls) gets a short plain reply.
 *
 * @module
 */

/** What the model does with one matching request. */
export type ExtractionModelStep =
  | {
    /** Stream this text as the reply (SSE, split into a few deltas), then end the turn. */
    text: string;
  }
  | {
    /** Never answer: the response stays open until the client goes away. */
    hang: true;
  }
  | {
    /** Answer with this HTTP error status and an Anthropic-style error body. */
    status: number;
  };

/** One request the model received. */
export interface ExtractionModelRequest {
  /** The request path (`/v1/messages`, ...). */
  path: string;
  /** The request body as sent (parsed JSON, or null when it was not JSON). */
  body: Record<string, unknown> | null;
  /** The request body's size in bytes. */
  bytes: number;
  /** True when the request matched and played a script step. */
  scripted: boolean;
}

/** A running scripted model server. */
export interface ScriptedExtractionModel extends AsyncDisposable {
  /** Base URL for `ANTHROPIC_BASE_URL`. */
  url: string;
  /** Environment for a Claude Code based agent: this server, no other traffic, root allowed. */
  env: Record<string, string>;
  /** Every request received so far. */
  requests(): ExtractionModelRequest[];
  /** Replaces the script; the step counter keeps counting. */
  setScript(steps: ExtractionModelStep[]): void;
}

/** Options for {@link scriptedExtractionModel}. */
export interface ScriptedExtractionModelOptions {
  /** Text that marks a request as one to answer from the script. */
  match?: string;
}

/** Starts a scripted Messages API server on a free loopback port. */
export function scriptedExtractionModel(
  steps: ExtractionModelStep[],
  options: ScriptedExtractionModelOptions = {},
): ScriptedExtractionModel {
  const match = options.match ?? "<extraction_request>";
  let script = steps;
  let next = 0;
  const received: ExtractionModelRequest[] = [];
  const hanging = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const raw = await req.text();
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(raw);
    } catch {
      // Recorded as not JSON.
    }
    if (path.endsWith("/count_tokens")) {
      received.push({ path, body, bytes: raw.length, scripted: false });
      return Response.json({ input_tokens: Math.ceil(raw.length / 4) });
    }
    const scripted = lastUserText(body).includes(match);
    received.push({ path, body, bytes: new TextEncoder().encode(raw).length, scripted });
    const step: ExtractionModelStep = scripted
      ? script[Math.min(next++, script.length - 1)] ?? { text: "" }
      : { text: "OK" };
    const model = typeof body?.model === "string" ? body.model : "claude-scripted";
    if ("status" in step) {
      return Response.json({
        type: "error",
        error: { type: "api_error", message: `scripted failure ${step.status}` },
      }, { status: step.status });
    }
    if ("hang" in step) {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          hanging.add(controller);
        },
        cancel() {},
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    }
    if (body?.stream !== true) return Response.json(message(model, step.text));
    return new Response(sse(model, step.text), {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  return {
    url,
    env: {
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: "scripted-model-key",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      // Claude Code refuses some modes as root; the tests run as root in CI containers.
      IS_SANDBOX: "1",
    },
    requests: () => [...received],
    setScript(steps) {
      script = steps;
    },
    async [Symbol.asyncDispose]() {
      for (const controller of hanging) {
        try {
          controller.close();
        } catch {
          // Already closed by the client going away.
        }
      }
      await server.shutdown();
    },
  };
}

/** The text of the last user message of a Messages API request body. */
function lastUserText(body: Record<string, unknown> | null): string {
  const messages = body?.messages;
  if (!Array.isArray(messages)) return "";
  const user = messages.filter((m) => m?.role === "user").at(-1);
  if (!user) return "";
  if (typeof user.content === "string") return user.content;
  if (!Array.isArray(user.content)) return "";
  return user.content.map((b: { type?: string; text?: string }) =>
    b?.type === "text" ? b.text ?? "" : ""
  ).join("\n");
}

const USAGE = { input_tokens: 10, output_tokens: 10 };

function message(model: string, text: string) {
  return {
    id: `msg_${crypto.randomUUID().replaceAll("-", "")}`,
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: USAGE,
  };
}

/** A streamed reply: message_start, one text block in a few deltas, message_delta, message_stop. */
function sse(model: string, text: string): ReadableStream<Uint8Array> {
  const start = { ...message(model, ""), content: [], stop_reason: null, usage: USAGE };
  const events: [string, unknown][] = [
    ["message_start", { type: "message_start", message: start }],
    ["content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }],
  ];
  const size = Math.max(1, Math.ceil(text.length / 3));
  for (let i = 0; i < text.length; i += size) {
    events.push(["content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: text.slice(i, i + size) },
    }]);
  }
  events.push(
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 10 },
    }],
    ["message_stop", { type: "message_stop" }],
  );
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const [event, data] of events) {
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
      }
      controller.close();
    },
  });
}
