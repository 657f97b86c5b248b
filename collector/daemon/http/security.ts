/**
 * Request guards: Host (DNS rebinding), Origin (CSRF) and the bearer token.
 *
 * @module
 */
import { timingSafeEqual } from "../runtime/mod.ts";
import { errorResponse } from "./errors.ts";

/**
 * The host:port spellings a loopback client may use to reach us: the usual loopback names plus
 * the configured host (any 127.x address is valid in settings).
 */
export function allowedHosts(port: number, options: { host?: string } = {}): Set<string> {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  if (options.host) {
    const host = options.host.includes(":") ? `[${options.host}]` : options.host;
    hosts.push(`${host.toLowerCase()}:${port}`);
  }
  return new Set(hosts);
}

/** Origins that count as same-site (the viewer served by the collector itself). */
export function allowedOrigins(port: number, options: { host?: string } = {}): Set<string> {
  return new Set([...allowedHosts(port, options)].map((h) => `http://${h}`));
}

/**
 * Refuses a request whose Host is not our loopback host:port, or that comes from another site.
 * Returns null when the request may go on. `entries` are paths another site (or a `file://`
 * page) may open as a top-level page: a plain GET navigation, which can change nothing.
 */
export function checkHostAndOrigin(
  request: Request,
  options: { hosts: Set<string>; origins: Set<string>; entries?: Set<string> },
): Response | null {
  const host = request.headers.get("host")?.toLowerCase() ?? "";
  if (!options.hosts.has(host)) {
    return errorResponse(403, "forbidden host", {
      details: "the collector only answers requests addressed to its loopback host and port",
    });
  }
  const origin = request.headers.get("origin");
  if (origin !== null && !options.origins.has(origin.toLowerCase())) {
    return errorResponse(403, "cross-origin request refused");
  }
  if (
    request.headers.get("sec-fetch-site") === "cross-site" && !isEntry(request, options.entries)
  ) {
    return errorResponse(403, "cross-origin request refused");
  }
  return null;
}

function isEntry(request: Request, entries: Set<string> | undefined): boolean {
  return entries !== undefined && request.method === "GET" &&
    request.headers.get("sec-fetch-mode") === "navigate" &&
    request.headers.get("sec-fetch-dest") === "document" &&
    entries.has(new URL(request.url).pathname);
}

/** Checks `Authorization: Bearer <token>`; returns null when it matches. */
export function checkBearer(request: Request, token: string): Response | null {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match && timingSafeEqual(match[1], token)) return null;
  return errorResponse(401, "unauthorized", {
    details: "send Authorization: Bearer <token>; the token is in the data dir's token file",
    headers: { "www-authenticate": 'Bearer realm="kiro-learn"' },
  });
}
