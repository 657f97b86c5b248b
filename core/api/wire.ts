/**
 * The collector's HTTP contract, the part every client shares and the shim can afford: routes,
 * query flags, the base URL, the token file, the internal-process marker, and a reader for the
 * one field the prompt hook needs. No npm and no `node:` modules: a hook loads this on every
 * firing (`core/testing/boundaries_test.ts` checks it).
 *
 * @module
 */

/** The collector's routes. */
export const ROUTES = {
  /** Liveness: `{status, version, pid}`, no token needed. */
  health: "/healthz",
  /** Ingest one event (`?retrieve=true` or `?context=resume` to get context back). */
  events: "/v1/events",
  /** Save (POST) and list (GET) memory records. */
  memories: "/v1/memories",
  /** Ranked search of one namespace. */
  search: "/v1/memories/search",
  /** Counts, queues, extraction, embedding, spool. */
  stats: "/v1/stats",
  /** One-time viewer login codes. */
  viewerCodes: "/v1/ui/codes",
} as const;

/** The path of one memory record. */
export function memoryPath(recordId: string): string {
  return `${ROUTES.memories}/${encodeURIComponent(recordId)}`;
}

/** What an ingest asks back: nothing, the prompt's context, or the session-start block. */
export type EventQuery = "retrieve" | "resume" | "";

/** The query string of an ingest (`?retrieve=true`, `?context=resume` or nothing). */
export function eventQueryString(query: EventQuery): string {
  if (query === "retrieve") return "?retrieve=true";
  if (query === "resume") return "?context=resume";
  return "";
}

/** Reads an ingest's query back from its URL parameters (the server side of the same flags). */
export function eventQueryOf(params: { get(name: string): string | null }): EventQuery {
  if (params.get("retrieve") === "true") return "retrieve";
  if (params.get("context") === "resume") return "resume";
  return "";
}

/** `http://host:port`, with IPv6 hosts bracketed. */
export function collectorBaseUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
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
