/**
 * The one HTTP client of the collector (the MCP server and the `kiro-learn` command use it; the
 * hooks use `wire.ts` only): bearer token, a hard timeout on every call, and one error family
 * whose messages say what to do (how to start the collector).
 *
 * The token is read from `<dataDir>/token` on every call rather than once: the collector
 * creates it on its first start, which may come after the client started. Before every call
 * that carries it, the collector must answer a fresh hello (`wire.ts`): a process on the port
 * that cannot prove it holds the token gets neither the token nor the request, and the call
 * throws {@linkcode CollectorImpostorError}.
 *
 * @module
 */
import { z } from "zod";
import {
  type MemoryRecord,
  MemoryRecordSchema,
  type ObservationType,
  type ProjectIdentityResponse,
  ProjectIdentityResponseSchema,
} from "../schemas/mod.ts";
import {
  checkCollectorProof,
  collectorBaseUrl,
  fetchCollector,
  helloPath,
  impostorMessage,
  memoryPath,
  newHelloNonce,
  portAccepts,
  readToken as readTokenFile,
  ROUTES,
  START_HINT,
} from "./wire.ts";

/** Per-request timeout when none is given: the collector answers in milliseconds when healthy. */
export const DEFAULT_TIMEOUT_MS = 5000;

/** Base class of every error the client throws; `message` is ready to show an agent. */
export class CollectorError extends Error {
  /** Create the error. */
  constructor(message: string) {
    super(message);
    this.name = "CollectorError";
  }
}

/** Nothing listens at the collector's address (or its token file does not exist yet). */
export class CollectorUnavailableError extends CollectorError {
  /** The address that was tried. */
  readonly url: string;

  /** Create the error for `url`. */
  constructor(url: string, detail = "") {
    super(`The kiro-learn collector is not running at ${url}${detail}. ${START_HINT}`);
    this.name = "CollectorUnavailableError";
    this.url = url;
  }
}

/** The collector did not answer within the timeout. */
export class CollectorTimeoutError extends CollectorError {
  /** The address that was tried. */
  readonly url: string;
  /** The timeout that expired, in milliseconds. */
  readonly timeoutMs: number;

  /** Create the error for `url` after `timeoutMs`. */
  constructor(url: string, timeoutMs: number) {
    super(
      `The kiro-learn collector at ${url} did not answer within ${timeoutMs} ms. ` +
        `If it is not running: ${START_HINT} If it is, check it with \`kiro-learn status\`.`,
    );
    this.name = "CollectorTimeoutError";
    this.url = url;
    this.timeoutMs = timeoutMs;
  }
}

/** This process may not reach the collector's address (its `--allow-net` names another). */
export class CollectorPermissionError extends CollectorError {
  /** Create the error for `url`. */
  constructor(url: string) {
    super(
      `This kiro-learn process is not allowed to reach ${url}: it was started for a ` +
        `different collector address. Register the MCP server again so its --allow-net ` +
        `matches settings.json.`,
    );
    this.name = "CollectorPermissionError";
  }
}

/** Something listens at the collector's address but could not prove it is our collector. */
export class CollectorImpostorError extends CollectorError {
  /** The address that was tried. */
  readonly url: string;

  /** Create the error for `url`. */
  constructor(url: string) {
    const message = impostorMessage(url.replace(/^http:\/\//, ""));
    super(`${message[0].toUpperCase()}${message.slice(1)}.`);
    this.name = "CollectorImpostorError";
    this.url = url;
  }
}

/** The collector answered with an error status (or a body of the wrong shape). */
export class CollectorHttpError extends CollectorError {
  /** HTTP status. */
  readonly status: number;
  /** The response body as received (parsed JSON when possible). */
  readonly body: unknown;

  /** Create the error for a response. */
  constructor(status: number, body: unknown, what: string) {
    super(`The kiro-learn collector refused to ${what}: HTTP ${status} ${describeBody(body)}`);
    this.name = "CollectorHttpError";
    this.status = status;
    this.body = body;
  }
}

/** A record and the events it was distilled from, as `GET /v1/memories/:id` returns them. */
export interface MemoryWithSources {
  /** The record. */
  record: MemoryRecord;
  /** Source events that still exist (synthetic MCP source ids match none). */
  source_events: unknown[];
}

/** A page of records, newest first. */
export interface MemoryPage {
  /** The records on this page. */
  items: MemoryRecord[];
  /** How many records match in all. */
  total: number;
}

/** Filters for {@linkcode CollectorClient.listMemories}. */
export interface ListMemoriesOptions {
  /** Page size (the collector clamps it to 1–500). */
  limit: number;
  /** Only records created at or after this instant (ISO 8601). */
  since?: string;
  /** Only records of this type. */
  observation_type?: ObservationType;
}

/** Liveness of the collector. */
export interface Health {
  /** `ok`. */
  status: string;
  /** Its version. */
  version: string;
  /** Its pid. */
  pid: number;
}

/** The collector's calls. Every method throws a {@linkcode CollectorError} on failure. */
export interface CollectorClient {
  /** The collector's base URL. */
  readonly url: string;
  /** Liveness, or null when nothing (or something else) answers. Never throws. */
  health(): Promise<Health | null>;
  /** Any route, with the token: the status and the parsed JSON (or text) body. */
  request(
    method: string,
    path: string,
    options?: { body?: unknown },
  ): Promise<{ status: number; body: unknown }>;
  /** Search in one namespace, ranked as the prompt hook injects (or by `mode`). */
  search(
    namespace: string,
    query: string,
    options: { limit: number; mode?: string },
  ): Promise<MemoryRecord[]>;
  /** One record with its source events, or null when no record has this id. */
  getMemory(id: string): Promise<MemoryWithSources | null>;
  /** Records of a namespace, newest first. */
  listMemories(namespace: string, options: ListMemoriesOptions): Promise<MemoryPage>;
  /** Stores a record (the collector scrubs its text); returns the stored id. */
  saveMemory(record: MemoryRecord): Promise<string>;
  /** Deletes a record; false when no record has this id. */
  deleteMemory(id: string): Promise<boolean>;
  /**
   * Names the project this client works in (its namespace and root, from `resolveProject`), so
   * the collector moves the project's older namespace into it first; the rows moved, or null.
   */
  identifyProject(namespace: string, projectPath: string): Promise<ProjectIdentityResponse>;
}

/** Options for {@linkcode createCollectorClient}. */
export interface CollectorClientOptions {
  /** Collector host (a loopback host from settings.json). */
  host: string;
  /** Collector port. */
  port: number;
  /** Path of the token file (`<dataDir>/token`). */
  tokenPath: string;
  /** Per-request timeout in milliseconds; defaults to {@linkcode DEFAULT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /**
   * How requests are sent; defaults to `fetchCollector` (never through a proxy). The collector passes its own app's
   * handler, so the MCP tools it serves go through the same routes without a socket.
   */
  fetch?: (request: Request) => Promise<Response>;
}

const HealthSchema = z.object({ status: z.string(), version: z.string(), pid: z.number() });
const HelloSchema = z.object({ proof: z.string() });
const SaveResponseSchema = z.object({ record_id: z.string() });
const PageSchema = z.object({ items: z.array(MemoryRecordSchema), total: z.number() });
const WithSourcesSchema = z.object({
  record: MemoryRecordSchema,
  source_events: z.array(z.unknown()).default([]),
});

/** Create a client for the collector at `host:port`. */
export function createCollectorClient(options: CollectorClientOptions): CollectorClient {
  const url = collectorBaseUrl(options.host, options.port);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const target = { host: options.host, port: options.port };
  const send = options.fetch ?? ((request: Request) => fetchCollector(target, request));

  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const token = readToken(options.tokenPath);
    if (token === null) {
      throw new CollectorUnavailableError(url, ` (no API token at ${options.tokenPath} yet)`);
    }
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    // One budget for the hello and the call together.
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      await proveCollector(token, signal);
      const response = await send(
        new Request(url + path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        }),
      );
      const text = await response.text();
      return { status: response.status, body: parseJson(text) };
    } catch (error) {
      throw translateFetchError(error, url, timeoutMs);
    }
  }

  /** Throws {@linkcode CollectorImpostorError} unless the listener proves it holds `token`. */
  async function proveCollector(token: string, signal: AbortSignal): Promise<void> {
    const challenge = { port: options.port, nonce: newHelloNonce() };
    const response = await send(new Request(url + helloPath(challenge.nonce), { signal }));
    // Read whole (bounded by the signal) but never shown: it may come from anyone.
    const text = await response.text();
    const hello = response.status === 200 ? HelloSchema.safeParse(parseJson(text)) : null;
    if (
      !hello?.success ||
      !(await checkCollectorProof(token, { ...challenge, proof: hello.data.proof }))
    ) {
      throw new CollectorImpostorError(url);
    }
  }

  function expect<T>(
    schema: z.ZodType<T>,
    response: { status: number; body: unknown },
    what: string,
  ): T {
    const parsed = schema.safeParse(response.body);
    if (!parsed.success) throw new CollectorHttpError(response.status, response.body, what);
    return parsed.data;
  }

  return {
    url,
    async health() {
      try {
        const res = await send(
          new Request(url + ROUTES.health, { signal: AbortSignal.timeout(1000) }),
        );
        if (!res.ok) {
          await res.body?.cancel();
          return null;
        }
        const parsed = HealthSchema.safeParse(await res.json());
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    },
    request(method, path, requestOptions = {}) {
      return call(method, path, requestOptions.body);
    },
    async search(namespace, query, { limit, mode }) {
      const params = new URLSearchParams({ namespace, query, limit: String(limit) });
      if (mode !== undefined) params.set("mode", mode);
      const res = await call("GET", `${ROUTES.search}?${params}`);
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, "search");
      return expect(z.array(MemoryRecordSchema), res, "search");
    },
    async getMemory(id) {
      const res = await call("GET", memoryPath(id));
      if (res.status === 404) return null;
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, `read ${id}`);
      return expect(WithSourcesSchema, res, `read ${id}`);
    },
    async listMemories(namespace, { limit, since, observation_type }) {
      const params = new URLSearchParams({ namespace, limit: String(limit) });
      if (since !== undefined) params.set("since", since);
      if (observation_type !== undefined) params.set("observation_type", observation_type);
      const res = await call("GET", `${ROUTES.memories}?${params}`);
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, "list memories");
      return expect(PageSchema, res, "list memories");
    },
    async saveMemory(record) {
      const res = await call("POST", ROUTES.memories, record);
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, "save the record");
      return expect(SaveResponseSchema, res, "save the record").record_id;
    },
    async deleteMemory(id) {
      const res = await call("DELETE", memoryPath(id));
      if (res.status === 404) return false;
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, `forget ${id}`);
      return true;
    },
    async identifyProject(namespace, projectPath) {
      const res = await call("POST", ROUTES.projectIdentity, {
        namespace,
        project_path: projectPath,
      });
      const what = "identify the project";
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, what);
      return expect(ProjectIdentityResponseSchema, res, what);
    },
  };
}

function readToken(path: string): string | null {
  try {
    return readTokenFile(path);
  } catch (error) {
    throw new CollectorError(
      `Cannot read the kiro-learn API token at ${path}: ${(error as Error).message}`,
    );
  }
}

function translateFetchError(error: unknown, url: string, timeoutMs: number): CollectorError {
  if (error instanceof CollectorError) return error;
  if (error instanceof DOMException && error.name === "TimeoutError") {
    return new CollectorTimeoutError(url, timeoutMs);
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return new CollectorPermissionError(url);
  }
  // fetch wraps connection failures (refused, reset, unreachable) in a TypeError.
  return new CollectorUnavailableError(url, ` (${(error as Error).message ?? String(error)})`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describeBody(body: unknown): string {
  if (body !== null && typeof body === "object") {
    const { error, details } = body as { error?: unknown; details?: unknown };
    if (typeof error === "string") {
      return details === undefined ? error : `${error}: ${JSON.stringify(details)}`;
    }
  }
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return text.length > 500 ? text.slice(0, 500) + "…" : text;
}

/**
 * Who holds the collector's port: `ours` (it proved it holds this data dir's token, and said
 * how it is), `foreign` (something accepts connections there but is not our collector: another
 * user's kiro-learn, another program — or anything at all before our token exists), `down`.
 */
export type CollectorState =
  | { state: "ours"; health: Health }
  | { state: "foreign" }
  | { state: "down" };

/** Asks the process on the collector's port who it is (see {@linkcode CollectorState}). */
export async function probeCollector(options: CollectorClientOptions): Promise<CollectorState> {
  const client = createCollectorClient({ timeoutMs: 2000, ...options });
  try {
    const res = await client.request("GET", ROUTES.health);
    const health = HealthSchema.safeParse(res.body);
    return health.success ? { state: "ours", health: health.data } : { state: "foreign" };
  } catch (error) {
    if (error instanceof CollectorImpostorError) return { state: "foreign" };
    // Listening but silent: nothing that proved anything; callers treat it as not running
    // (what a health check that timed out said before).
    if (error instanceof CollectorTimeoutError) return { state: "down" };
    if (!(error instanceof CollectorUnavailableError)) throw error;
  }
  // Refused, or no token yet: anything that still accepts a connection is not ours.
  return (await portAccepts(options.host, options.port)) ? { state: "foreign" } : { state: "down" };
}
