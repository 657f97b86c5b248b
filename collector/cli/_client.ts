/**
 * The CLI's HTTP client for the local collector (token from the data dir).
 *
 * @module
 */
import type { Settings } from "@kiro-learn/core/settings";
import { readToken } from "../daemon/runtime/mod.ts";

/** Base URL of the collector the settings point at. */
export function collectorUrl(settings: Settings): string {
  const host = settings.collector.host.includes(":")
    ? `[${settings.collector.host}]`
    : settings.collector.host;
  return `http://${host}:${settings.collector.port}`;
}

/** The collector is not answering. */
export class CollectorDownError extends Error {
  /** Creates the error with the advice to start it. */
  constructor(url: string) {
    super(`the collector is not running at ${url}: start it with \`kiro-learn start\``);
    this.name = "CollectorDownError";
  }
}

/** Calls the collector; throws CollectorDownError when nothing answers. */
export async function callCollector(
  settings: Settings,
  path: string,
  options: { method?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<{ status: number; body: unknown }> {
  const url = collectorUrl(settings);
  const token = readToken(settings.paths.token) ?? "";
  let response: Response;
  try {
    response = await fetch(url + path, {
      method: options.method ?? "GET",
      headers: {
        authorization: `Bearer ${token}`,
        ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    });
  } catch {
    throw new CollectorDownError(url);
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body };
}

/** Health of the collector, or null when it is down. */
export async function health(
  settings: Settings,
): Promise<{ status: string; version: string; pid: number } | null> {
  try {
    const res = await fetch(collectorUrl(settings) + "/healthz", {
      signal: AbortSignal.timeout(1000),
    });
    if (!res.ok) return null;
    return await res.json();
  } catch {
    return null;
  }
}
