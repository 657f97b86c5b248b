/**
 * Every /v1 route of the collector as a table a test can walk (with a request each that would
 * succeed with the token), the ways to get the credentials wrong, and a viewer login: for the
 * auth matrix, the cookie replay and the attack suite.
 *
 * @module
 */
import assert from "node:assert/strict";
import { HOOK_GIT_CONFIG_QUERY, HOOK_HEADERS, MCP_NAMESPACE_HEADER } from "@kiro-learn/core/api";
import { makeEvent, makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { LOGIN_PATH, sessionCookieName } from "../../daemon/viewer/mod.ts";
import type { TestDaemon } from "./daemon.ts";

/** A /v1 route, and how to call it. */
export interface V1Route {
  /** The HTTP method. */
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The route as app.ts declares it (`:id` is a path parameter). */
  route: string;
  /** The concrete URL (with a query a correct request would need). */
  path: (id: string) => string;
  /** A body a correct request would carry. */
  body?: () => unknown;
  /** Headers a correct request needs besides the credentials. */
  headers?: Record<string, string>;
}

const PROJECT = "a".repeat(64);

/**
 * Every /v1 route and method; a route missing here fails the coverage test in
 * `collector/daemon/server/routes_auth_test.ts`.
 */
export const V1_ROUTES: V1Route[] = [
  { method: "GET", route: "/v1/events", path: () => "/v1/events?limit=5" },
  { method: "POST", route: "/v1/events", path: () => "/v1/events", body: () => makeEvent() },
  { method: "GET", route: "/v1/memories", path: () => "/v1/memories?limit=5" },
  { method: "POST", route: "/v1/memories", path: () => "/v1/memories", body: () => makeRecord() },
  {
    method: "GET",
    route: "/v1/memories/search",
    path: () => `/v1/memories/search?namespace=${encodeURIComponent(TEST_NAMESPACE)}&query=x`,
  },
  { method: "GET", route: "/v1/memories/:id", path: (id) => `/v1/memories/${id}` },
  {
    method: "PATCH",
    route: "/v1/memories/:id",
    path: (id) => `/v1/memories/${id}`,
    body: () => ({ title: "renamed by an intruder" }),
  },
  { method: "DELETE", route: "/v1/memories/:id", path: (id) => `/v1/memories/${id}` },
  { method: "GET", route: "/v1/stats", path: () => "/v1/stats" },
  {
    method: "POST",
    route: "/v1/projects/identity",
    path: () => "/v1/projects/identity",
    body: () => ({ namespace: TEST_NAMESPACE, project_path: "/srv/app" }),
  },
  { method: "GET", route: "/v1/retrievals", path: () => "/v1/retrievals?limit=5" },
  { method: "GET", route: "/v1/runs", path: () => "/v1/runs?limit=5" },
  { method: "GET", route: "/v1/merges", path: () => "/v1/merges?limit=5" },
  {
    method: "POST",
    route: "/v1/extraction/flush",
    path: () => `/v1/extraction/flush?project_id=${PROJECT}`,
  },
  { method: "GET", route: "/v1/feed", path: () => "/v1/feed" },
  { method: "POST", route: "/v1/ui/codes", path: () => "/v1/ui/codes" },
  ...([
    ["/v1/hooks/claude-code", "Stop", { last_assistant_message: "Done." }],
    ["/v1/hooks/codex", "Stop", { last_assistant_message: "Done.", turn_id: "t-1" }],
    ["/v1/hooks/gemini-cli", "AfterAgent", { prompt: "Go", prompt_response: "Done." }],
  ] as [string, string, Record<string, string>][]).map(([route, hook, fields]): V1Route => ({
    method: "POST",
    route,
    path: () => `${route}?${HOOK_GIT_CONFIG_QUERY}=`,
    body: () => ({
      hook_event_name: hook,
      session_id: "0b7f6f7e-3c1a-4f7e-9c55-0c6a3e2b9f10",
      cwd: "/srv/app",
      ...fields,
    }),
    headers: {
      [HOOK_HEADERS.cwd]: "/srv/app",
      [HOOK_HEADERS.root]: "/srv/app",
      [HOOK_HEADERS.actor]: "tester",
      [HOOK_HEADERS.client]: "test-host",
    },
  })),
  {
    method: "POST",
    route: "/v1/hooks/copilot-cli",
    path: () => `/v1/hooks/copilot-cli?${HOOK_GIT_CONFIG_QUERY}=`,
    // Copilot CLI's payloads name no event: the launcher sends the one its hook command names.
    body: () => ({
      sessionId: "0b7f6f7e-3c1a-4f7e-9c55-0c6a3e2b9f10",
      cwd: "/srv/app",
      timestamp: 1,
      prompt: "Go",
    }),
    headers: {
      [HOOK_HEADERS.cwd]: "/srv/app",
      [HOOK_HEADERS.root]: "/srv/app",
      [HOOK_HEADERS.actor]: "tester",
      [HOOK_HEADERS.client]: "test-host",
      [HOOK_HEADERS.event]: "userPromptSubmitted",
    },
  },
  {
    method: "POST",
    route: "/v1/mcp/headers",
    path: () => `/v1/mcp/headers?${HOOK_GIT_CONFIG_QUERY}=`,
    headers: {
      [HOOK_HEADERS.cwd]: "/srv/app/src",
      [HOOK_HEADERS.root]: "/srv/app",
      [HOOK_HEADERS.actor]: "tester",
    },
  },
  {
    method: "POST",
    route: "/v1/mcp",
    path: () => "/v1/mcp",
    body: () => ({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    headers: {
      [MCP_NAMESPACE_HEADER]: TEST_NAMESPACE,
      accept: "application/json, text/event-stream",
    },
  },
];

/** Ways to get the credentials wrong, each as the headers sent. */
export function badCredentials(daemon: TestDaemon): [string, Record<string, string>][] {
  return [
    ["no authorization header", {}],
    ["a wrong token", { authorization: "Bearer not-the-token" }],
    ["the token with a character more", { authorization: `Bearer ${daemon.token}x` }],
    ["the token cut short", { authorization: `Bearer ${daemon.token.slice(0, -1)}` }],
    ["the token under another scheme", { authorization: `Basic ${daemon.token}` }],
    ["an empty bearer", { authorization: "Bearer " }],
    ["a forged viewer session cookie", { cookie: `${sessionCookieName(daemon.port)}=forged` }],
  ];
}

/** Calls `route` on `daemon` (for the `:id` routes, about `id`) with exactly `headers`. */
export function routeRequest(
  daemon: TestDaemon,
  route: V1Route,
  options: { id: string; headers: Record<string, string> },
): Promise<Response> {
  const body = route.body?.();
  const headers = { ...route.headers, ...options.headers };
  return fetch(daemon.url + route.path(options.id), {
    method: route.method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Logs a viewer in on the real daemon as its login page does: the cookie and the key. */
export async function viewerLogin(daemon: TestDaemon): Promise<{ cookie: string; key: string }> {
  const minted = await daemon.fetch("/v1/ui/codes", { method: "POST" });
  const { code } = await minted.json();
  const login = await fetch(daemon.url + LOGIN_PATH, {
    method: "POST",
    headers: { origin: daemon.url, "content-type": "application/json" },
    body: JSON.stringify({ code }),
  });
  assert.equal(login.status, 200);
  const cookie = login.headers.get("set-cookie")!.split(";")[0];
  const { session_key: key } = await login.json();
  assert.ok(key, "the login answer carries the session key");
  return { cookie, key };
}
