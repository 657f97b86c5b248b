/**
 * The MCP server's HTTP client for the local collector: bearer token, a hard timeout on every
 * call, and typed errors whose messages an agent can act on (how to start the collector).
 *
 * The token is read from `<dataDir>/token` on every call rather than once: the collector
 * creates it on its first start, which may come after the agent started this server.
 *
 * @module
 */
import { z } from "zod";
import {
  type MemoryRecord,
  MemoryRecordSchema,
  type ObservationType,
} from "@kiro-learn/core/schemas";

/** Per-request timeout when none is given: the collector answers in milliseconds when healthy. */
export const DEFAULT_TIMEOUT_MS = 5000;

/** How to start the collector; part of every "not running" and "timed out" message. */
export const START_HINT =
  "Start it with `kiro-learn start` (or `deno task serve` in the kiro-learn checkout).";

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
      `The kiro-learn MCP server is not allowed to reach ${url}: it was registered for a ` +
        `different collector address. Register the MCP server again so its --allow-net ` +
        `matches settings.json.`,
    );
    this.name = "CollectorPermissionError";
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

/** The calls the MCP tools make. Every method throws a {@linkcode CollectorError} on failure. */
export interface CollectorClient {
  /** The collector's base URL. */
  readonly url: string;
  /** Ranked lexical search in one namespace. */
  search(namespace: string, query: string, options: { limit: number }): Promise<MemoryRecord[]>;
  /** One record with its source events, or null when no record has this id. */
  getMemory(id: string): Promise<MemoryWithSources | null>;
  /** Records of a namespace, newest first. */
  listMemories(namespace: string, options: ListMemoriesOptions): Promise<MemoryPage>;
  /** Stores a record (the collector scrubs its text); returns the stored id. */
  saveMemory(record: MemoryRecord): Promise<string>;
  /** Deletes a record; false when no record has this id. */
  deleteMemory(id: string): Promise<boolean>;
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
}

/** `http://host:port`, with IPv6 hosts bracketed. */
export function collectorUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

const SaveResponseSchema = z.object({ record_id: z.string() });
const PageSchema = z.object({ items: z.array(MemoryRecordSchema), total: z.number() });
const WithSourcesSchema = z.object({
  record: MemoryRecordSchema,
  source_events: z.array(z.unknown()).default([]),
});

/** Create a client for the collector at `host:port`. */
export function createCollectorClient(options: CollectorClientOptions): CollectorClient {
  const url = collectorUrl(options.host, options.port);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const token = await readToken(options.tokenPath);
    if (token === null) {
      throw new CollectorUnavailableError(url, ` (no API token at ${options.tokenPath} yet)`);
    }
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    try {
      const response = await fetch(url + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      return { status: response.status, body: parseJson(text) };
    } catch (error) {
      throw translateFetchError(error, url, timeoutMs);
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
    async search(namespace, query, { limit }) {
      const params = new URLSearchParams({ namespace, query, limit: String(limit) });
      const res = await call("GET", `/v1/memories/search?${params}`);
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, "search");
      return expect(z.array(MemoryRecordSchema), res, "search");
    },
    async getMemory(id) {
      const res = await call("GET", `/v1/memories/${encodeURIComponent(id)}`);
      if (res.status === 404) return null;
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, `read ${id}`);
      return expect(WithSourcesSchema, res, `read ${id}`);
    },
    async listMemories(namespace, { limit, since, observation_type }) {
      const params = new URLSearchParams({ namespace, limit: String(limit) });
      if (since !== undefined) params.set("since", since);
      if (observation_type !== undefined) params.set("observation_type", observation_type);
      const res = await call("GET", `/v1/memories?${params}`);
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, "list memories");
      return expect(PageSchema, res, "list memories");
    },
    async saveMemory(record) {
      const res = await call("POST", "/v1/memories", record);
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, "save the record");
      return expect(SaveResponseSchema, res, "save the record").record_id;
    },
    async deleteMemory(id) {
      const res = await call("DELETE", `/v1/memories/${encodeURIComponent(id)}`);
      if (res.status === 404) return false;
      if (res.status !== 200) throw new CollectorHttpError(res.status, res.body, `forget ${id}`);
      return true;
    },
  };
}

async function readToken(path: string): Promise<string | null> {
  try {
    const token = (await Deno.readTextFile(path)).trim();
    return token === "" ? null : token;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new CollectorError(
      `The kiro-learn MCP server cannot read the API token at ${path}: ${(error as Error).message}`,
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
