// Every /v1 route refuses a request without the right bearer token, on the real daemon.
import assert from "node:assert/strict";
import { MCP_NAMESPACE_HEADER } from "@kiro-learn/core/api";
import { makeEvent, makeRecord, TEST_NAMESPACE } from "@kiro-learn/core/testing";
import { postJson, startTestDaemon, type TestDaemon } from "../../tooling/testing/mod.ts";
import { SESSION_KEY, sessionCookieName } from "../viewer/mod.ts";

interface Route {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The route as app.ts declares it (`:id` is a path parameter). */
  route: string;
  /** The concrete URL (with a query a correct request would need). */
  path: (id: string) => string;
  /** A body a correct request would carry. */
  body?: () => unknown;
  /** Headers a correct request would carry besides the token. */
  headers?: Record<string, string>;
}

const PROJECT = "a".repeat(64);

/** Every /v1 route and method; a route missing here fails the coverage test below. */
const ROUTES: Route[] = [
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
function badCredentials(daemon: TestDaemon): [string, Record<string, string>][] {
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

function request(
  daemon: TestDaemon,
  route: Route,
  id: string,
  headers: Record<string, string>,
): Promise<Response> {
  const body = route.body?.();
  const all = { ...route.headers, ...headers };
  return fetch(daemon.url + route.path(id), {
    method: route.method,
    headers: body === undefined ? all : { ...all, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

Deno.test("the table covers every /v1 route and method app.ts declares", async () => {
  const source = await Deno.readTextFile(new URL("./app.ts", import.meta.url));
  const block = /const ALLOWED_METHODS[^{]*\{([^}]*)\}/.exec(source)?.[1];
  assert.ok(block, "ALLOWED_METHODS not found in app.ts");
  const declared = [...block.matchAll(/"(\/v1\/[^"]+)":\s*\[([^\]]*)\]/g)].flatMap((
    [, route, methods],
  ) => [...methods.matchAll(/"([A-Z]+)"/g)].map(([, method]) => `${method} ${route}`));
  assert.ok(declared.length >= 14, `only ${declared.length} routes parsed`);
  const tested = ROUTES.map((r) => `${r.method} ${r.route}`);
  assert.deepEqual([...tested].sort(), [...declared].sort());
});

Deno.test("every /v1 route answers 401 without the right token, and changes nothing", async (t) => {
  await using daemon = await startTestDaemon();
  // A real record, so the :id routes would find something if they let the request through.
  const record = makeRecord({ title: "the record intruders aim at" });
  const saved = await postJson(daemon, "/v1/memories", record);
  assert.equal(saved.status, 200);
  await saved.body?.cancel();
  const before = {
    events: (await (await daemon.fetch("/v1/events?limit=200")).json()).items.length,
    memories: await (await daemon.fetch("/v1/memories?limit=500")).json(),
  };

  for (const route of ROUTES) {
    await t.step(`${route.method} ${route.route}`, async () => {
      for (const [what, headers] of badCredentials(daemon)) {
        const res = await request(daemon, route, record.record_id, headers);
        const text = await res.text();
        assert.equal(res.status, 401, `${what}: ${res.status} ${text}`);
        assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /, what);
        assert.equal(JSON.parse(text).error, "unauthorized", what);
      }
    });
  }

  await t.step("nothing was stored, edited or deleted", async () => {
    const events = (await (await daemon.fetch("/v1/events?limit=200")).json()).items.length;
    assert.equal(events, before.events);
    assert.deepEqual(await (await daemon.fetch("/v1/memories?limit=500")).json(), before.memories);
    const got = await (await daemon.fetch(`/v1/memories/${record.record_id}`)).json();
    assert.equal(got.record.title, "the record intruders aim at");
  });

  // The same requests with the token get through: the 401s above came from the missing token,
  // not from a route that does not exist or a request that was wrong in some other way.
  await t.step("with the token, every route is reached", async () => {
    for (const route of ROUTES) {
      const res = await request(daemon, route, record.record_id, {
        authorization: `Bearer ${daemon.token}`,
      });
      await res.body?.cancel();
      assert.ok(
        res.status >= 200 && res.status < 300,
        `${route.method} ${route.route} with the token: ${res.status}`,
      );
    }
  });
});

/** Logs a viewer in on the real daemon: the session cookie and the key its redirect carries. */
async function viewerLogin(daemon: TestDaemon): Promise<{ cookie: string; key: string }> {
  const minted = await daemon.fetch("/v1/ui/codes", { method: "POST" });
  const { path } = await minted.json();
  const login = await fetch(daemon.url + path, { redirect: "manual" });
  await login.body?.cancel();
  assert.equal(login.status, 303);
  const cookie = login.headers.get("set-cookie")!.split(";")[0];
  const fragment = new URL(login.headers.get("location")!, daemon.url).hash.slice(1);
  const key = new URLSearchParams(fragment).get(SESSION_KEY.fragment);
  assert.ok(key, "the login redirect carries the session key in its fragment");
  return { cookie, key };
}

Deno.test("a live viewer cookie replayed alone opens no /v1 route, the feed included", async (t) => {
  await using daemon = await startTestDaemon();
  const record = makeRecord({ title: "the record a replayed cookie aims at" });
  const saved = await postJson(daemon, "/v1/memories", record);
  await saved.body?.cancel();
  const { cookie, key } = await viewerLogin(daemon);
  // What another local server receives from the browser, replayed with a forged Origin.
  const replay = { cookie, origin: daemon.url };

  await t.step("the cookie alone: 403 on every route", async () => {
    for (const route of ROUTES) {
      const res = await request(daemon, route, record.record_id, replay);
      const text = await res.text();
      assert.equal(res.status, 403, `${route.method} ${route.route}: ${res.status} ${text}`);
      assert.match(JSON.parse(text).details, /kiro-learn open/);
    }
    const feed = await fetch(`${daemon.url}/v1/feed?${SESSION_KEY.query}=wrong`, {
      headers: { cookie },
    });
    assert.equal(feed.status, 403);
    await feed.body?.cancel();
    const got = await (await daemon.fetch(`/v1/memories/${record.record_id}`)).json();
    assert.equal(got.record.title, record.title, "nothing was changed");
  });

  await t.step(
    "the cookie with the session's key reaches every route a session may use",
    async () => {
      for (const route of ROUTES) {
        const res = await request(daemon, route, record.record_id, {
          ...replay,
          [SESSION_KEY.header]: key,
        });
        await res.body?.cancel();
        // Minting codes takes the bearer token: a session must not extend itself.
        const expected = route.route === "/v1/ui/codes" ? 401 : 200;
        assert.equal(res.status, expected, `${route.method} ${route.route}`);
      }
      const feed = await fetch(`${daemon.url}/v1/feed?${SESSION_KEY.query}=${key}`, {
        headers: { cookie },
      });
      assert.equal(feed.status, 200);
      await feed.body?.cancel();
    },
  );
});
