/**
 * The collector's HTTP contract, the part every client shares and the shim can afford: routes,
 * query flags, the base URL, the token file, the internal-process marker, a reader for the
 * one field the prompt hook needs, and the hello by which the collector proves it is ours. No npm and no `node:` modules: a hook loads this on every
 * firing (`core/testing/boundaries_test.ts` checks it).
 *
 * @module
 */

/** The collector's routes. */
export const ROUTES = {
  /** Liveness: `{status, version, pid}`, no token needed. */
  health: "/healthz",
  /**
   * The collector proves it holds the token, no token needed (so outside `/v1`): `GET
   * ?nonce=<32 hex>` answers `{proof}` (see {@linkcode collectorProof}). Every client asks
   * before it sends the token.
   */
  hello: "/hello",
  /** Ingest one event (`?retrieve=true` or `?context=resume` to get context back). */
  events: "/v1/events",
  /** Save (POST) and list (GET) memory records. */
  memories: "/v1/memories",
  /** Ranked search of one namespace. */
  search: "/v1/memories/search",
  /** Counts, queues, extraction, embedding, spool. */
  stats: "/v1/stats",
  /**
   * POST `{namespace, project_path}`: the project a client works in. The collector moves the
   * project's older, path-derived namespace into `namespace` if no event did yet, so a search
   * right after an upgrade finds the project's memory.
   */
  projectIdentity: "/v1/projects/identity",
  /** One-time viewer login codes. */
  viewerCodes: "/v1/ui/codes",
  /**
   * The memory tools over MCP Streamable HTTP (stateless: each POST is one JSON-RPC exchange),
   * for Claude Code; the project comes in {@linkcode MCP_NAMESPACE_HEADER}.
   */
  mcp: "/v1/mcp",
  /**
   * A Claude Code hook's raw payload (the hook launcher's fast path over the collector's Unix
   * socket): the collector runs the shim's plan and answers with exactly what the hook prints.
   */
  claudeCodeHook: "/v1/hooks/claude-code",
  /** A Codex CLI hook's raw payload, as {@linkcode ROUTES.claudeCodeHook} (plain stdout). */
  codexHook: "/v1/hooks/codex",
  /**
   * A Gemini CLI hook's raw payload, as {@linkcode ROUTES.claudeCodeHook}; answers the one JSON
   * object the hook prints (`hookSpecificOutput.additionalContext`, else `{}`).
   */
  geminiCliHook: "/v1/hooks/gemini-cli",
  /**
   * A Copilot CLI hook's raw payload, as {@linkcode ROUTES.claudeCodeHook}; its event comes in
   * {@linkcode HOOK_HEADERS}' `event` (the payload names none); answers one JSON object
   * (top-level `additionalContext`, else `{}`).
   */
  copilotCliHook: "/v1/hooks/copilot-cli",
  /**
   * POST, empty body, the hook launcher's project headers and git config: the headers Claude
   * Code's MCP connection sends (`{namespace, Authorization}`, as the headers helper prints
   * them). For the helper's fast path over the collector's Unix socket; bearer only (a viewer
   * session never gets the token).
   */
  mcpHeaders: "/v1/mcp/headers",
} as const;

/** The hook route of each agent whose hook launcher takes the fast path. */
export const HOOK_ROUTES = {
  "claude-code": ROUTES.claudeCodeHook,
  codex: ROUTES.codexHook,
  "gemini-cli": ROUTES.geminiCliHook,
  "copilot-cli": ROUTES.copilotCliHook,
} as const;

/**
 * The header naming the project an MCP request acts on (its namespace): an HTTP MCP server is
 * shared by every session, so each request says which project it is for.
 */
export const MCP_NAMESPACE_HEADER = "X-Kiro-Learn-Namespace";

/**
 * Headers the hook launcher sends with a raw payload: what the shim would have read from its
 * process (working directory, environment, machine name) and found on disk (the project root,
 * which the collector's sandbox may not read).
 */
export const HOOK_HEADERS = {
  /** The hook's working directory (`$PWD`); the payload's `cwd` must be the same. */
  cwd: "X-Kiro-Learn-Cwd",
  /** The project root: the nearest folder above the working directory holding a `.git` folder. */
  root: "X-Kiro-Learn-Root",
  /** The actor (`$USER`, else `$USERNAME`, else `$LOGNAME`). */
  actor: "X-Kiro-Learn-Actor",
  /** This machine's name (`source.client_id`). */
  client: "X-Kiro-Learn-Client",
  /** The firing key (`<nanoseconds>-<pid>`) event ids derive from. */
  firing: "X-Kiro-Learn-Firing",
  /** The hook's event, for an agent whose payloads do not name it (Copilot CLI). */
  event: "X-Kiro-Learn-Event",
} as const;

/**
 * The query parameter carrying the repository's git config file on the hook fast path (the
 * collector cannot read the project; the remote in that file decides the project id).
 */
export const HOOK_GIT_CONFIG_QUERY = "gitconfig";

/**
 * The hook launcher's budgets for its fast path, in seconds (curl's `--max-time`): a hook that
 * retrieves (session start, prompt), one that only stores, and any hook after a call the
 * collector did not answer in time. Past its budget the hook spools through the shim.
 */
export const HOOK_FAST_PATH_BUDGET_S = { retrieve: 1, store: 0.3, unanswered: 0.1 } as const;

/**
 * The MCP headers helper's budget for its fast path, in seconds: past it the helper runs its Deno
 * fallback, which waits for the collector within the hooks' own timeout.
 */
export const MCP_HEADERS_FAST_PATH_BUDGET_S = 1;

/**
 * The MCP relay's budget for one JSON-RPC request over the socket, in seconds: a tool call may
 * search or summarise, so it is generous; past it the relay answers that request with an error.
 */
export const MCP_RELAY_BUDGET_S = 120;

/** The path of one memory record. */
export function memoryPath(recordId: string): string {
  return `${ROUTES.memories}/${encodeURIComponent(recordId)}`;
}

/**
 * What an ingest asks: the prompt's context, the session-start block, nothing, or (`history`,
 * for imports of past events whose memory already exists) to store it without queueing it for
 * extraction. `retrieve-start` is a prompt of a session whose start only stored (Claude Code's
 * `startup`): its context, led by the session-start block while the session has not been
 * shown one yet. `backfill` is an event rebuilt from a record of the past (a Claude Code
 * transcript): stored and extracted like a hook's, unless the hooks already recorded it.
 */
export type EventQuery = "retrieve" | "retrieve-start" | "resume" | "history" | "backfill" | "";

/**
 * The query string of an ingest (`?retrieve=true`, `?retrieve=true&context=start`,
 * `?context=resume` or nothing). A collector that does not know `context=start` still answers
 * the prompt's context.
 */
export function eventQueryString(query: EventQuery): string {
  if (query === "retrieve") return "?retrieve=true";
  if (query === "retrieve-start") return "?retrieve=true&context=start";
  if (query === "resume") return "?context=resume";
  if (query === "history") return "?history=true";
  if (query === "backfill") return "?backfill=true";
  return "";
}

/** Reads an ingest's query back from its URL parameters (the server side of the same flags). */
export function eventQueryOf(params: { get(name: string): string | null }): EventQuery {
  if (params.get("retrieve") === "true") {
    return params.get("context") === "start" ? "retrieve-start" : "retrieve";
  }
  if (params.get("context") === "resume") return "resume";
  if (params.get("history") === "true") return "history";
  if (params.get("backfill") === "true") return "backfill";
  return "";
}

/** `http://host:port`, with IPv6 hosts bracketed. */
export function collectorBaseUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The collector's MCP endpoint (Streamable HTTP), as `install` registers it for Claude Code. */
export function collectorMcpUrl(host: string, port: number): string {
  return collectorBaseUrl(host, port) + ROUTES.mcp;
}

/**
 * Set in the environment of every process the collector starts (LLM agents): a shim that sees
 * it exits at once, so the memory system never records itself.
 */
export const INTERNAL_ENV_VAR = "KIRO_LEARN_INTERNAL";

/** How to start the collector; part of every "not running" message. */
export const START_HINT =
  "Start it with `kiro-learn start` (or `deno task serve` in the kiro-learn checkout).";

/** The API token in `path`, or null when the collector has not created it yet. */
export function readToken(path: string): string | null {
  try {
    const token = Deno.readTextFileSync(path).trim();
    return token === "" ? null : token;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * The context block of an ingest response (`retrieval.context`), or null when the body has none
 * or is not what the collector sends. Hand-checked: the hook's path has no schema library.
 */
export function readRetrievalContext(body: unknown): string | null {
  if (body === null || typeof body !== "object") return null;
  const retrieval = (body as { retrieval?: unknown }).retrieval;
  if (retrieval === null || typeof retrieval !== "object") return null;
  const context = (retrieval as { context?: unknown }).context;
  return typeof context === "string" ? context : null;
}

/** The hello's query parameter: the client's fresh random nonce. */
export const HELLO_NONCE_PARAM = "nonce";

/** A hello nonce: 32 lowercase hex characters (128 random bits). */
export const HELLO_NONCE_PATTERN: RegExp = /^[0-9a-f]{32}$/;

/** What the collector's HMAC covers before the port and nonce: no other use of the token signs this. */
export const HELLO_PROOF_LABEL = "kiro-learn-collector\n";

/** A fresh hello nonce (32 hex characters from `crypto.getRandomValues`). */
export function newHelloNonce(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

/** The path of a hello carrying `nonce`. */
export function helloPath(nonce: string): string {
  return `${ROUTES.hello}?${HELLO_NONCE_PARAM}=${encodeURIComponent(nonce)}`;
}

/**
 * The collector's answer to a hello: hex `HMAC-SHA256(token, LABEL + port + "\n" + nonce)`.
 * Only a process that holds the token can compute it, and the client never reveals the token
 * to get it. The port is the one the collector serves (the one the client dialled): a proof
 * obtained from our collector on another port does not pass for this one.
 */
export async function collectorProof(
  token: string,
  challenge: { port: number; nonce: string },
): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(token),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const message = `${HELLO_PROOF_LABEL}${challenge.port}\n${challenge.nonce}`;
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message))));
}

/** True when `hello.proof` is what our collector answers to this port and nonce with `token`. */
export async function checkCollectorProof(
  token: string,
  hello: { port: number; nonce: string; proof: unknown },
): Promise<boolean> {
  const proof = hello.proof;
  if (typeof proof !== "string" || !/^[0-9a-f]{64}$/.test(proof)) return false;
  const expected = await collectorProof(token, { port: hello.port, nonce: hello.nonce });
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ proof.charCodeAt(i);
  return diff === 0;
}

/**
 * The `proof` of a hello response body (JSON text or parsed), or null when it has none.
 * Hand-checked: the hook's path has no schema library.
 */
export function readHelloProof(body: unknown): string | null {
  let value = body;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (value === null || typeof value !== "object") return null;
  const proof = (value as { proof?: unknown }).proof;
  return typeof proof === "string" ? proof : null;
}

/**
 * What a client says when the process on the collector's port fails the hello: it names the
 * address and what to do (no final period: callers append their own). Nothing was sent to that
 * process (no token, no event).
 */
export function impostorMessage(address: string): string {
  return `the process listening at ${address} could not prove it is this data dir's kiro-learn ` +
    "collector (another user's kiro-learn, or another program), so it was sent nothing (no " +
    "token, no event). Find it with " +
    `\`lsof -i :${address.slice(address.lastIndexOf(":") + 1)}\` and stop it, or give ` +
    'kiro-learn another port ("collector": {"port": …} in settings.json, then `kiro-learn ' +
    "install`); if it is an older kiro-learn, restart it (`kiro-learn stop`, then `kiro-learn " +
    "start`)";
}

function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * What the `kiro-learn` command says when the collector's port is held by a process that is not
 * this data dir's collector (it failed the hello, or never could: no token yet): the port, what
 * it may be, and the way out (a port of this user's own in settings). No final period.
 */
export function portTakenMessage(port: number, options: { settingsPath: string }): string {
  return `port ${port} is held by a process that is not this user's kiro-learn collector ` +
    "(another user's kiro-learn, or another program); it was sent no token. Give this " +
    `collector its own port: set "collector": {"port": …} in ${options.settingsPath} (or ` +
    "KIRO_LEARN_PORT), then run `kiro-learn install` so the hooks use it, and `kiro-learn start`";
}

/** Statuses whose response may carry no body. */
const NULL_BODY_STATUSES = [101, 103, 204, 205, 304];

/**
 * The one way a client of ours sends a request to the collector over TCP (the `kiro-learn`
 * command, the MCP stdio server, the MCP headers helper): `fetch` with a client pinned to
 * `host:port` itself, so no proxy is ever used, whatever `HTTP_PROXY`, `HTTPS_PROXY`,
 * `ALL_PROXY` or `NO_PROXY` say. A plain `fetch` hands a request for 127.0.0.1 to a configured
 * proxy, with its `Authorization: Bearer` header, and the answer (the memory) comes back
 * through it; the hello proof does not help, since a forwarding proxy relays it to the real
 * collector. (The shims speak HTTP over `Deno.connect`, and the launchers' curl goes over the
 * Unix socket with `--noproxy '*'`: neither asks a proxy either.)
 *
 * The response is read whole, bounded by the request's signal, before the pinned client is
 * closed: no connection outlives the call.
 */
export async function fetchCollector(
  target: { host: string; port: number },
  request: Request,
): Promise<Response> {
  const client = Deno.createHttpClient({
    proxy: { transport: "tcp", hostname: target.host, port: target.port },
  });
  try {
    const response = await fetch(request, { client });
    const body = await response.arrayBuffer();
    return new Response(NULL_BODY_STATUSES.includes(response.status) ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } finally {
    client.close();
  }
}

/**
 * True when something accepts a TCP connection on `host:port` (which says nothing about who it
 * is: the hello does). Never throws.
 */
export async function portAccepts(host: string, port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: host, port });
    conn.close();
    return true;
  } catch {
    return false;
  }
}
