/**
 * Test helper: a scripted Gemini API (`generativelanguage` v1beta) on loopback, so the real
 * Gemini CLI runs offline (`GOOGLE_GEMINI_BASE_URL`). `POST /v1beta/models/<model>:
 * streamGenerateContent` answers from a per-test script as Server-Sent Events (one
 * `GenerateContentResponse` per event, `alt=sse`), `:generateContent` as one JSON response, and
 * `:countTokens` with a rough count. Every request is recorded, so a test can read what the
 * client sent the model (the prompt's parts carry what the `BeforeAgent` hook injected).
 *
 * @module
 */
import { type ModelRequest, startScriptedServer } from "./_scripted_server.ts";

/** A tool call the scripted model asks for (a Gemini `functionCall` part). */
export interface GeminiToolCall {
  /** The tool's name (`run_shell_command`, …). */
  name: string;
  /** Its arguments. */
  args: Record<string, unknown>;
}

/** One part the scripted model answers with. */
export type GeminiPart = { text: string } | { functionCall: GeminiToolCall };

/** A request as the server received it. */
export type GeminiRequest = ModelRequest;

/** Picks the reply to a `generateContent` body. */
export type GeminiScript = (body: Record<string, unknown>) => GeminiPart[];

/** A running scripted Gemini model. */
export interface ScriptedGeminiModel {
  /** Base URL for `GOOGLE_GEMINI_BASE_URL`. */
  url: string;
  /** Every request received so far, in order. */
  requests: GeminiRequest[];
  /** Closes the server. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The whole text of a request (system instruction and every content), to search for context. */
export function geminiRequestText(body: Record<string, unknown> | null): string {
  if (body === null) return "";
  return JSON.stringify({
    systemInstruction: body.systemInstruction ?? null,
    contents: body.contents ?? [],
  });
}

/** True when a request declares tools (the agent's own loop, not a side request). */
export function declaresTools(body: Record<string, unknown>): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

/**
 * A session of tool calls, one after another: the agent's loop asks for `tools[k]` once `k` of
 * the turn's function responses are back, and ends with `text`; side requests get `text` too.
 */
export function geminiToolsThenText(tools: readonly GeminiToolCall[], text: string): GeminiScript {
  return (body) => {
    const done = declaresTools(body) ? turnFunctionResponses(body) : tools.length;
    return done < tools.length ? [{ functionCall: tools[done] }] : [{ text }];
  };
}

/** How many function responses the turn under way has (since the last plain user prompt). */
function turnFunctionResponses(body: Record<string, unknown>): number {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  let results = 0;
  for (const content of [...contents].reverse()) {
    const { role, parts } = content as { role?: string; parts?: unknown };
    if (role !== "user") continue;
    const list = Array.isArray(parts) ? parts as Record<string, unknown>[] : [];
    const count = list.filter((p) => p !== null && typeof p === "object" && "functionResponse" in p)
      .length;
    if (count === 0) break;
    results += count;
  }
  return results;
}

function roughTokens(body: Record<string, unknown> | null): number {
  return Math.max(1, Math.ceil(geminiRequestText(body).length / 4));
}

/** One `GenerateContentResponse` holding `parts`, as the API sends it. */
export function geminiResponse(
  parts: GeminiPart[],
  options: { model: string; promptTokens: number },
): Record<string, unknown> {
  return {
    candidates: [{
      content: { role: "model", parts },
      finishReason: "STOP",
      index: 0,
    }],
    usageMetadata: {
      promptTokenCount: options.promptTokens,
      candidatesTokenCount: 10,
      totalTokenCount: options.promptTokens + 10,
    },
    modelVersion: options.model,
  };
}

function answer(request: ModelRequest & { pathname: string }, script: GeminiScript): Response {
  const { method: verb, pathname, body } = request;
  const call = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):([A-Za-z]+)$/.exec(pathname);
  if (verb === "POST" && call !== null) {
    const [, model, method] = call;
    if (method === "countTokens") return Response.json({ totalTokens: roughTokens(body) });
    if ((method === "generateContent" || method === "streamGenerateContent") && body !== null) {
      const reply = geminiResponse(script(body), { model, promptTokens: roughTokens(body) });
      if (method === "generateContent") return Response.json(reply);
      return new Response(`data: ${JSON.stringify(reply)}\r\n\r\n`, {
        headers: { "content-type": "text/event-stream" },
      });
    }
  }
  return Response.json(
    { error: { code: 404, message: `no ${pathname} here`, status: "NOT_FOUND" } },
    { status: 404 },
  );
}

/** Starts the scripted Gemini model on `127.0.0.1` and a free port. */
export function startScriptedGeminiModel(script: GeminiScript): ScriptedGeminiModel {
  const { origin, setScript: _fixed, ...server } = startScriptedServer(script, answer);
  return { url: origin, ...server };
}
