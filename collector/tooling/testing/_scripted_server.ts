/**
 * Test helper: what the scripted model servers share (`scripted_model.ts` for the Anthropic
 * Messages API, `scripted_responses_model.ts` for OpenAI's Responses API, `scripted_gemini_model.ts`
 * for the Gemini API): a server on `127.0.0.1` and a free port, every request recorded (method,
 * path and query, JSON body) before the API's own handler answers it from the current script,
 * which a test may replace between sessions.
 *
 * @module
 */

/** A request as a scripted server received it. */
export interface ModelRequest {
  /** HTTP method. */
  method: string;
  /** Path and query. */
  path: string;
  /** Parsed JSON body, or null when there was none. */
  body: Record<string, unknown> | null;
}

/** A running scripted server answering with scripts of type `S`. */
export interface ScriptedServer<S> {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Every request received so far, in order. */
  requests: ModelRequest[];
  /** Replaces the script for the requests to come. */
  setScript(script: S): void;
  /** Closes the server. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Reads and records a request: its body parsed as JSON (null when empty or not JSON). */
async function record(req: Request, requests: ModelRequest[]): Promise<ModelRequest> {
  const url = new URL(req.url);
  const text = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
  let body: Record<string, unknown> | null = null;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  const request = { method: req.method, path: url.pathname + url.search, body };
  requests.push(request);
  return request;
}

/**
 * Starts a scripted server: each request is recorded, then `answer` replies to it with the
 * script current at that moment.
 */
export function startScriptedServer<S>(
  script: S,
  answer: (request: ModelRequest & { pathname: string }, script: S) => Response,
): ScriptedServer<S> {
  let current = script;
  const requests: ModelRequest[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const request = await record(req, requests);
      return answer({ ...request, pathname: new URL(req.url).pathname }, current);
    },
  );
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    requests,
    setScript(next) {
      current = next;
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
